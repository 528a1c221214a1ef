import { EFFECT_TRAITS, EFFECTS, type Effect } from '@gatehousejs/core';
import { isPlainObject } from '../internal/jsonRpc.js';
import type { McpEra } from '../types.js';
import { type ClientOpener, connectClient } from './client.js';
import type { ContractFixture, ContractHost, ToolFixture } from './fixture.js';

/** A tool as the suite knows it: from `tools/list`, classified, with the fixture's knowledge. */
export interface ContractTool {
  readonly name: string;
  readonly effect: Effect;
  /** Where the class came from: the fixture, the annotations (hints), or the `write` default. */
  readonly effectFrom: 'fixture' | 'annotations' | 'default';
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** The advertised `outputSchema`, if any. */
  readonly outputSchema: unknown;
  /** Absent from `tools/list` for the fixture's `limited` grant (I7). */
  readonly hiddenWhenLimited: boolean;
  readonly fixture: ToolFixture;
  /** Gatehouse's confirm tools: their samples exist only inside the I9 check's own flow. */
  readonly confirmsOutward?: boolean;
}

/** Optional host members; checks that need one are skipped without it. */
export type HostFeature =
  | 'revoke'
  | 'changeBehindCaller'
  | 'auditRows'
  | 'logLines'
  | 'seedCanaries'
  | 'seedDecoys'
  | 'foreignCredentials'
  | 'advanceClock';

const FEATURES: readonly HostFeature[] = [
  'revoke',
  'changeBehindCaller',
  'auditRows',
  'logLines',
  'seedCanaries',
  'seedDecoys',
  'foreignCredentials',
  'advanceClock',
];

/** What the suite runs against: the fixture, the discovered tools and the host's optional features. */
export interface ContractPlan {
  readonly fixture: ContractFixture;
  readonly era: McpEra;
  readonly transport: 'http' | 'stdio';
  readonly tools: readonly ContractTool[];
  readonly features: ReadonlySet<HostFeature>;
  /** Tools the fixture describes that `tools/list` did not show. */
  readonly unlistedFixtureTools: readonly string[];
}

/**
 * The effect class whose annotations equal `annotations` (EFFECT_TRAITS),
 * or undefined. Classes with equal hints (notify/wake, alert/delete) yield
 * the first. Hints choose which checks apply; they never excuse a tool from
 * the observations every check makes.
 */
export function effectFromAnnotations(annotations: unknown): Effect | undefined {
  if (!isPlainObject(annotations)) return undefined;
  return EFFECTS.find((effect) => {
    const hints = EFFECT_TRAITS[effect].annotations;
    return (Object.keys(hints) as (keyof typeof hints)[]).every((key) => annotations[key] === hints[key]);
  });
}

/**
 * Gatehouse's own tools. `confirm_action` and `reject_action` are exercised by
 * the I9 check through the outward tools that prepare them, not as tools of
 * their own; `list_recent_changes` is a read that takes no arguments and lists
 * only the calling connection's changes (core scopes it to the connection, a
 * narrower scope than the tenant), none on a fresh connection, so the I3 list
 * check has nothing to list with it.
 */
const BUILT_IN_FIXTURES: Readonly<Record<string, ToolFixture | 'via-outward-tools'>> = {
  confirm_action: 'via-outward-tools',
  reject_action: 'via-outward-tools',
  list_recent_changes: { effect: 'read', sample: {}, listing: false },
};

function toolOf(raw: Record<string, unknown>, fixture: ContractFixture, hidden: ReadonlySet<string>) {
  const name = String(raw.name);
  const builtIn = BUILT_IN_FIXTURES[name];
  const known = fixture.tools?.[name] ?? (typeof builtIn === 'object' ? builtIn : {});
  const hinted = effectFromAnnotations(raw.annotations);
  const tool: ContractTool = {
    name,
    effect: known.effect ?? hinted ?? 'write',
    effectFrom: known.effect ? 'fixture' : hinted ? 'annotations' : 'default',
    description: typeof raw.description === 'string' ? raw.description : '',
    inputSchema: isPlainObject(raw.inputSchema) ? raw.inputSchema : {},
    outputSchema: raw.outputSchema,
    hiddenWhenLimited: hidden.has(name),
    fixture: known,
    ...(builtIn === 'via-outward-tools' ? { confirmsOutward: true } : {}),
  };
  return tool;
}

async function listedNames(
  host: ContractHost,
  plan: { era: McpEra; client: ClientOpener | undefined },
  token: string,
) {
  const client = await connectClient(plan.client, { endpoint: host.endpoint, era: plan.era }, token);
  try {
    const reply = await client.list();
    const tools = reply.result?.tools;
    if (reply.status !== 200 || !Array.isArray(tools)) {
      throw new Error(
        `tools/list failed (status ${reply.status}${reply.failure ? `, ${reply.failure}` : ''}); check the fixture's start() and mint()`,
      );
    }
    return tools.filter(isPlainObject);
  } finally {
    await client.close();
  }
}

/**
 * Starts the fixture's host once, lists its tools with a full and (when
 * given) a limited credential, and classifies each tool by effect. Throws
 * when the host cannot be started or listed: the suite cannot run.
 */
export async function planContract<H extends ContractHost>(
  fixture: ContractFixture<H>,
): Promise<ContractPlan> {
  const erased = fixture as unknown as ContractFixture;
  const era = fixture.era ?? '2026-07-28';
  const host = await fixture.start();
  try {
    const listed = await listedNames(host, { era, client: fixture.client }, await host.mint(host.home));
    const limited = fixture.limited
      ? new Set(
          (
            await listedNames(
              host,
              { era, client: fixture.client },
              await host.mint(host.home, fixture.limited),
            )
          ).map((t) => String(t.name)),
        )
      : undefined;
    const hidden = new Set(
      limited ? listed.map((t) => String(t.name)).filter((name) => !limited.has(name)) : [],
    );
    const tools = listed.map((raw) => toolOf(raw, erased, hidden));
    const names = new Set(tools.map((t) => t.name));
    const hostMembers = host as unknown as Record<string, unknown>;
    return {
      fixture: erased,
      era,
      transport: host.endpoint.transport,
      tools,
      features: new Set(FEATURES.filter((f) => typeof hostMembers[f] === 'function')),
      unlistedFixtureTools: Object.keys(fixture.tools ?? {}).filter((name) => !names.has(name)),
    };
  } finally {
    await host.close();
  }
}
