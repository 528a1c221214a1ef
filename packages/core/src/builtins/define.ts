import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ToolCall } from '../contract/call.js';
import { toolOutputSchema } from '../contract/envelope.js';
import type { ToolDefinition } from '../contract/tool.js';
import { EFFECT_TRAITS, type Effect, type EffectAnnotations } from '../effects.js';
import type { JsonObject, JsonSchema } from '../json.js';
import { checkDefinition, definitionRules } from '../schema/checks.js';
import { compileInput } from '../schema/compileInput.js';
import { jsonSchema } from '../schema/jsonSchemaInput.js';

/** The spec of a tool Gatehouse itself serves (confirm_action, reject_action, list_recent_changes). */
export interface BuiltInSpec {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly effect: Effect;
  /** Overrides the effect table's hints where a built-in acts for several classes. */
  readonly annotations?: EffectAnnotations;
  readonly input: JsonSchema;
  readonly resultSchema: JsonSchema;
  /** `confirm_action` and `reject_action`: run by core's confirm stage, not by `handle`. */
  readonly confirms?: 'confirm' | 'reject';
  readonly handle?: (call: ToolCall, unit: unknown) => Promise<JsonObject>;
}

const rules = definitionRules({});

/** Builds a built-in tool definition: same checks and envelope as host tools, reserved name allowed. */
export function builtInTool<TRight extends string, TServices>(
  ajv: Ajv2020,
  spec: BuiltInSpec,
): ToolDefinition<TRight, TServices> {
  const input = compileInput<JsonObject>(spec.name, jsonSchema<JsonObject>(spec.input), ajv);
  checkDefinition(spec, input.jsonSchema, rules, { builtIn: true });
  const annotations = spec.annotations ?? EFFECT_TRAITS[spec.effect].annotations;
  return Object.freeze({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    effect: spec.effect,
    requires: [],
    annotations,
    guards: [],
    approval: undefined,
    listing: Object.freeze({
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: input.jsonSchema,
      outputSchema: toolOutputSchema(spec.resultSchema, false),
      annotations: Object.freeze({ title: spec.title, ...annotations }),
    }),
    runtime: Object.freeze({
      input,
      presenter: { outputSchema: spec.resultSchema, present: (value: unknown) => value as JsonObject },
      run: undefined,
      handle: spec.handle,
      prepare: undefined,
      confirms: spec.confirms,
    }),
    forReplay: (data: JsonObject) => data,
  });
}
