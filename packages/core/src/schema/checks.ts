import { ConfigurationError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { walkSchema } from './strictness.js';

/** Tool names: snake_case, starting with a letter, at most 64 characters. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Names of tools Gatehouse itself serves; host tools may not take them. */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([
  'confirm_action',
  'reject_action',
  'list_recent_changes',
]);

/** Property names that would let a model pick a tenant (I3), compared without case, `_` or `-`. */
export const DEFAULT_TENANT_LIKE_NAMES = [
  'tenant',
  'tenant_id',
  'workspace',
  'workspace_id',
  'org',
  'org_id',
  'organization_id',
  'account_id',
] as const;

/**
 * Phrases that instruct a model instead of describing a tool (I16). A tool
 * description says what the tool does; it never tells the model how to behave.
 */
export const DEFAULT_INSTRUCTION_PATTERNS: readonly RegExp[] = [
  /\bignore\b/i,
  /\bdisregard\b/i,
  /\byou (must|should|need to|have to|are required to)\b/i,
  /\b(always|never|first|immediately) (call|use|invoke|run|ask|send)\b/i,
  /\b(do not|don't|never) (tell|mention|reveal|inform|show)\b/i,
  /\b(previous|prior|above|earlier) instructions?\b/i,
  /\bsystem prompt\b/i,
  /\bthe (user|assistant|model|agent|ai) (must|should|needs to)\b/i,
  /<\/?\s*(important|system|instructions?|secret)\s*>/i,
];

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** What the definition checks compare against; extended by the host's configuration. */
export interface DefinitionRules {
  readonly tenantLikeNames: ReadonlySet<string>;
  readonly instructionPatterns: readonly RegExp[];
}

/** Builds the rules from defaults plus host additions. */
export function definitionRules(extra: {
  readonly tenantLikeNames?: readonly string[];
  readonly instructionPatterns?: readonly RegExp[];
}): DefinitionRules {
  return {
    tenantLikeNames: new Set([...DEFAULT_TENANT_LIKE_NAMES, ...(extra.tenantLikeNames ?? [])].map(squash)),
    instructionPatterns: [...DEFAULT_INSTRUCTION_PATTERNS, ...(extra.instructionPatterns ?? [])],
  };
}

function refuseInstructions(tool: string, where: string, text: string, rules: DefinitionRules): void {
  for (const pattern of rules.instructionPatterns) {
    const match = pattern.exec(text);
    if (match) {
      throw new ConfigurationError(
        `Tool ${tool}: ${where} tells the model how to behave ("${match[0]}"). Describe what the tool does instead (I16).`,
      );
    }
  }
}

/**
 * Definition-time checks (throw a {@link ConfigurationError} naming the tool):
 * a bad or reserved name, an empty description, a tenant-like property
 * anywhere in the input schema (I3), and instructions to the model in the
 * title, description or any parameter description (I16).
 */
export function checkDefinition(
  def: { readonly name: string; readonly title?: string; readonly description: string },
  inputSchema: JsonSchema,
  rules: DefinitionRules,
  options: { readonly builtIn?: boolean } = {},
): void {
  const { name } = def;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ConfigurationError(
      `Tool name ${JSON.stringify(name)} is invalid: use snake_case letters, digits and "_", starting with a letter, at most 64 characters.`,
    );
  }
  if (!options.builtIn && RESERVED_TOOL_NAMES.has(name)) {
    throw new ConfigurationError(`Tool name ${name} is reserved for Gatehouse's built-in tools.`);
  }
  if (typeof def.description !== 'string' || def.description.trim() === '') {
    throw new ConfigurationError(`Tool ${name}: a description is required.`);
  }
  refuseInstructions(name, 'the description', def.description, rules);
  if (def.title) refuseInstructions(name, 'the title', def.title, rules);
  refuseTenantLike(name, inputSchema, rules.tenantLikeNames);
  walkSchema(inputSchema, ({ path, description }) => {
    if (description !== undefined)
      refuseInstructions(name, `the description of "${path || 'input'}"`, description, rules);
  });
}

/**
 * Refuses an input schema with a tenant-like property anywhere in it (I3):
 * the tenant comes from the credential, never from arguments. `names` are
 * squashed (lower case, letters and digits only), as {@link definitionRules} makes them.
 */
export function refuseTenantLike(tool: string, inputSchema: JsonSchema, names: ReadonlySet<string>): void {
  walkSchema(inputSchema, ({ path, name: property }) => {
    if (property !== undefined && names.has(squash(property))) {
      throw new ConfigurationError(
        `Tool ${tool}: input property "${path}" looks like a tenant selector. The tenant comes from the credential, never from arguments (I3).`,
      );
    }
  });
}
