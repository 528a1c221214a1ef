import type { StandardSchemaV1 } from '@standard-schema/spec';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Connection } from './context.js';
import { toolOutputSchema } from './contract/envelope.js';
import type { ToolGuard } from './contract/guard.js';
import {
  checkSpecShape,
  type NoToolGuards,
  type ToolDefinition,
  type ToolGuardKit,
  type ToolListing,
  type ToolSpec,
  toolGuardsOf,
} from './contract/tool.js';
import { EFFECT_TRAITS } from './effects.js';
import { ConfigurationError, type ToolErrorInit } from './errors.js';
import type { JsonObject } from './json.js';
import { checkPorts, type PortMap, type Ports } from './ports.js';
import { checkDefinition, definitionRules } from './schema/checks.js';
import { compileInput, type ToolInput } from './schema/compileInput.js';
import type { JsonSchemaInput } from './schema/jsonSchemaInput.js';
import { createServer, type GatehouseServer, type ServerInternals, type ServerOptions } from './server.js';

// ajv-formats ships CommonJS with a default export; normalise both module shapes.
const addFormats = ((addFormatsModule as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

/** The validated input type a tool's `input` yields. */
type InputOf<I> =
  I extends StandardSchemaV1<infer _In, infer T> ? T : I extends JsonSchemaInput<infer T> ? T : never;

/** Options of {@link createGatehouse}: the host's types, bound once. */
export interface GatehouseOptions<
  TRight extends string,
  TServices,
  TPorts extends PortMap = PortMap,
  THandle = unknown,
  TKit extends ToolGuardKit = NoToolGuards,
> {
  /** The host's vocabulary of rights; `requires` may only name these. */
  readonly rights: readonly TRight[];
  /**
   * Builds the services a tool receives, bound to the calling connection
   * (tenant, actor), with the host's outbound ports guarded for the call's
   * effect class (I8). Called once per call. For writes and confirmations it
   * runs inside the unit of work and receives its handle (`unit`), so the
   * services' writes join the transaction; for reads and previews `unit` is
   * undefined. The type `unit` is declared with here (a SQLite database, a
   * `pg.PoolClient`) is bound once: `createServer({ unitOfWork })` must hand
   * that type, and services and unit guards see it without a cast.
   */
  readonly services: (
    connection: Connection<TRight>,
    ports: Ports<TPorts>,
    unit: THandle | undefined,
  ) => TServices;
  /**
   * Guard factories a tool's `guards: (g) => […]` can call by name, typed by
   * the tool: `toolGuards` of `@gatehousejs/guards` gives `g.version`,
   * `g.batchCount` and `g.duplicate`.
   */
  readonly toolGuards?: TKit;
  /** Outbound side-effect ports (mailer, pager, alerts, jobs, webhooks), each with its effect class. */
  readonly ports?: TPorts;
  /** Extra property names to refuse as tenant selectors (I3), beyond the defaults. */
  readonly tenantLikeNames?: readonly string[];
  /** Extra patterns that mark a description as instructions to the model (I16). */
  readonly instructionPatterns?: readonly RegExp[];
  /**
   * Maps an error of the host's own (a domain error its services throw) to
   * the tool error a model reads, or `undefined` to leave it unexpected
   * (`internal_error`, reported to `onError`). Applied where host code runs:
   * a tool's `run` and `prepare` and a unit guard's `check`. Services stay
   * free of MCP: they throw their own errors, and REST maps the same errors
   * to HTTP. A mapper that throws or returns no valid tool error is a fault.
   */
  readonly toolError?: (error: unknown) => ToolErrorInit | undefined;
}

/** The host-bound Gatehouse: `defineTool` and the server builder. */
export interface Gatehouse<
  TRight extends string,
  TServices,
  THandle = unknown,
  TKit extends ToolGuardKit = NoToolGuards,
> {
  readonly rights: readonly TRight[];
  /**
   * Declares a tool once. Throws a `ConfigurationError` naming the tool for a
   * bad name, a tenant-like input property (I3), a description that instructs
   * the model (I16), an unknown right, or an outward tool without `prepare`.
   */
  defineTool<
    I extends ToolInput<unknown>,
    TValue,
    const TGuards extends readonly ToolGuard<InputOf<I>, TServices>[] = readonly ToolGuard<
      InputOf<I>,
      TServices
    >[],
  >(
    spec: ToolSpec<InputOf<I>, TValue, TRight, TServices, TGuards, TKit> & { readonly input: I },
  ): ToolDefinition<TRight, TServices>;
  /** Builds a server from tools and guards; see {@link ServerOptions}. */
  createServer(options: ServerOptions<TRight, TServices, THandle>): GatehouseServer<TRight>;
}

function checkOptions(options: {
  readonly rights: readonly string[];
  readonly services: unknown;
  readonly toolError?: unknown;
}): void {
  if (options.toolError !== undefined && typeof options.toolError !== 'function') {
    throw new ConfigurationError('createGatehouse: toolError must be a function of the error, or left out.');
  }
  if (!Array.isArray(options.rights) || options.rights.some((r) => typeof r !== 'string' || r === '')) {
    throw new ConfigurationError('createGatehouse: rights must be an array of non-empty strings.');
  }
  if (new Set(options.rights).size !== options.rights.length) {
    throw new ConfigurationError('createGatehouse: rights must not repeat.');
  }
  if (typeof options.services !== 'function') {
    throw new ConfigurationError('createGatehouse: services must be a function of the connection.');
  }
}

/**
 * Binds the host's types once (its rights vocabulary and its services) and
 * returns `defineTool` and `createServer`.
 *
 * @example
 * const gh = createGatehouse({ rights: ['bookings.read'] as const, services: (c) => new Services(c) });
 */
export function createGatehouse<
  TRight extends string,
  TServices,
  TPorts extends PortMap = PortMap,
  THandle = unknown,
  TKit extends ToolGuardKit = NoToolGuards,
>(
  options: GatehouseOptions<TRight, TServices, TPorts, THandle, TKit>,
): Gatehouse<TRight, TServices, THandle, TKit> {
  checkOptions(options);
  const ports: PortMap = options.ports ?? {};
  checkPorts(ports);
  const rights = new Set<string>(options.rights);
  const rules = definitionRules(options);
  const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: true });
  addFormats(ajv);
  // Results are checked, never changed: no defaults, no coercion, first error only. No
  // meta-schema pass (about 90 ms per instance): a schema ajv cannot compile still throws.
  const outputAjv = new Ajv2020({ strict: false, validateSchema: false });
  addFormats(outputAjv);

  const kit: ToolGuardKit = options.toolGuards ?? {};
  if (typeof kit !== 'object' || kit === null || Object.values(kit).some((f) => typeof f !== 'function'))
    throw new ConfigurationError('createGatehouse: toolGuards must map names to guard factories.');
  const gatehouse: Gatehouse<TRight, TServices, THandle, TKit> = {
    rights: Object.freeze([...options.rights]),
    defineTool(spec) {
      checkSpecShape(spec, rights);
      const input = compileInput(spec.name, spec.input as ToolInput<unknown>, ajv);
      checkDefinition(spec, input.jsonSchema, rules);
      const traits = EFFECT_TRAITS[spec.effect];
      const listing: ToolListing = Object.freeze({
        name: spec.name,
        ...(spec.title ? { title: spec.title } : {}),
        description: spec.description,
        inputSchema: input.jsonSchema,
        outputSchema: toolOutputSchema(spec.presenter.outputSchema, traits.twoStep),
        annotations: Object.freeze({ ...(spec.title ? { title: spec.title } : {}), ...traits.annotations }),
      });
      return Object.freeze({
        name: spec.name,
        title: spec.title,
        description: spec.description,
        effect: spec.effect,
        requires: Object.freeze([...(spec.requires ?? [])]),
        annotations: traits.annotations,
        guards: toolGuardsOf(spec.name, spec.guards, kit),
        approval: spec.approval,
        listing,
        runtime: Object.freeze({
          input,
          presenter: spec.presenter as ToolDefinition<TRight, TServices>['runtime']['presenter'],
          run: spec.run as ToolDefinition<TRight, TServices>['runtime']['run'],
          prepare: spec.prepare as ToolDefinition<TRight, TServices>['runtime']['prepare'],
        }),
        forReplay: (data: JsonObject) => spec.presenter.forReplay?.(data) ?? data,
      });
    },
    createServer(serverOptions) {
      return createServer(serverOptions, {
        services: options.services as ServerInternals<TRight, TServices>['services'],
        ports,
        ajv,
        outputAjv,
        tenantLikeNames: rules.tenantLikeNames,
        toolError: options.toolError,
      });
    },
  };
  return Object.freeze(gatehouse);
}
