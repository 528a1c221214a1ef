import type { Connection } from '../context.js';
import type { ToolCall } from '../contract/call.js';
import { assertJsonObject, type Prepared, type RunContext, type ToolDefinition } from '../contract/tool.js';
import { type ErrorCode, HOST_ERROR_CODES, ToolError, type ToolErrorInit } from '../errors.js';
import { isPlainObject, type JsonObject } from '../json.js';
import { type CallPhase, guardPorts, type PortMap, type Ports, type PortViolation } from '../ports.js';
import { type AuditStore, auditRow } from '../storage/auditStore.js';

/** What running a tool needs from the host and the server. */
export interface Host<TRight extends string, TServices> {
  readonly services: (connection: Connection<TRight>, ports: Ports<PortMap>, unit: unknown) => TServices;
  readonly ports: PortMap;
  readonly audit: AuditStore | undefined;
  readonly clock: () => Date;
  /** Reports an unexpected failure that did not stop the call (e.g. a violation row that could not be written). */
  readonly report: (error: unknown, correlationId: string) => void;
  /** What an error thrown by host code becomes (see {@link hostFaults}). */
  readonly fault: (error: unknown, correlationId: string) => unknown;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** Whether a mapper's answer is a tool error a host may raise: a host code, a message and a fix, a well-formed `next`. */
function isHostErrorInit(value: unknown): value is ToolErrorInit {
  if (!isPlainObject(value)) return false;
  const { code, message, fix, next, details } = value as Record<string, unknown>;
  if (!HOST_ERROR_CODES.has(code as ErrorCode) || !isText(message) || !isText(fix)) return false;
  if (next !== undefined && !(isPlainObject(next) && isText(next.tool))) return false;
  return details === undefined || isPlainObject(details);
}

/**
 * What an error thrown by host code (`run`, `prepare`, a unit guard) becomes:
 * a `ToolError` stays as it is; an error `map` recognizes becomes the tool
 * error it returns (the original kept as its `cause`, never rendered); any
 * other error stays as it is and ends as `internal_error`. A mapper that
 * throws, or answers something other than a tool error of a host code, is
 * reported and the original error stays unexpected.
 */
export function hostFaults(
  map: ((error: unknown) => ToolErrorInit | undefined) | undefined,
  report: (error: unknown, correlationId: string) => void,
): (error: unknown, correlationId: string) => unknown {
  if (!map) return (error) => error;
  return (error, correlationId) => {
    if (ToolError.is(error)) return error;
    let init: unknown;
    try {
      init = map(error);
    } catch (failure) {
      report(failure, correlationId);
      return error;
    }
    if (init === undefined) return error;
    if (!isHostErrorInit(init)) {
      report(
        new TypeError(
          `toolError answered no tool error of a host code (${[...HOST_ERROR_CODES].join(', ')}) with a message and a fix.`,
        ),
        correlationId,
      );
      return error;
    }
    return new ToolError(init, { cause: error });
  };
}

/** Collects public `id` strings from a presented result (top level and one level down), for audit and logs. */
export function objectIdsOf(data: JsonObject): string[] {
  const ids: string[] = [];
  const take = (value: unknown) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const id = (value as JsonObject).id;
      if (typeof id === 'string') ids.push(id);
    }
  };
  take(data);
  for (const value of Object.values(data)) {
    if (Array.isArray(value)) value.slice(0, 50).forEach(take);
    else take(value);
  }
  return [...new Set(ids)];
}

/** One audit row's varying part. */
export interface AuditEntryOf {
  readonly action: string;
  readonly outcome: 'ok' | 'violation';
  readonly objectIds: readonly string[];
  readonly note?: string | undefined;
}

/**
 * Appends one audit row (I15). Inside a unit of work a failure throws, so the
 * write rolls back with it: no write commits without its row.
 */
export async function appendAudit<TRight extends string, TServices>(
  host: Host<TRight, TServices>,
  connection: Connection,
  entry: AuditEntryOf,
  unit?: unknown,
): Promise<void> {
  if (!host.audit) return;
  await host.audit.append(
    auditRow(
      {
        channel: connection.channel,
        tenantId: connection.tenantId,
        connectionId: connection.connectionId,
        clientName: connection.clientName,
        actorId: connection.creatorId,
        action: entry.action,
        outcome: entry.outcome,
        objectIds: entry.objectIds,
        note: entry.note ?? null,
      },
      host.clock().getTime(),
    ),
    unit,
  );
}

/**
 * The services of one call, built once: its ports guarded for the tool's
 * effect and the current phase, which moves from `check` (guards, previews:
 * outward ports closed) to `run`. Every port reached against its class is
 * recorded, so the call fails even if tool code catches the error (I8).
 */
export class CallServices<TRight extends string, TServices> {
  readonly violations: PortViolation[] = [];
  readonly services: TServices;
  /** What an error of this call's host code becomes (the host's `toolError`). */
  readonly fault: (error: unknown, correlationId: string) => unknown;
  #phase: CallPhase = 'check';
  #reached = false;

  constructor(
    host: Host<TRight, TServices>,
    tool: Pick<ToolDefinition, 'effect'>,
    connection: Connection<TRight>,
    unit: unknown,
  ) {
    const ports = guardPorts(
      host.ports,
      tool.effect,
      () => this.#phase,
      this.violations,
      () => {
        this.#reached = true;
      },
    );
    this.fault = host.fault;
    this.services = host.services(connection, ports, unit);
  }

  get phase(): CallPhase {
    return this.#phase;
  }

  /** Whether the call reached a port that is not `read` (it may have acted outside any transaction). */
  get reachedPort(): boolean {
    return this.#reached;
  }

  enter(phase: CallPhase): void {
    this.#phase = phase;
  }

  /** Throws `effect_violation` if any port was reached against its class. */
  assertClean(tool: Pick<ToolDefinition, 'name' | 'effect'>): void {
    const violation = this.violations[0];
    if (!violation) return;
    throw new ToolError({
      code: 'effect_violation',
      message: `${tool.name} reached the ${violation.portEffect} port ${violation.port}; nothing was sent.`,
      fix: 'This is a server defect: the tool is declared with the wrong effect class. Report it to the server operator.',
      details: {
        port: violation.port,
        port_effect: violation.portEffect,
        tool_effect: tool.effect,
        phase: this.#phase,
      },
    });
  }

  /** The audit note of the first violation, if any. */
  violationNote(): string | undefined {
    const violation = this.violations[0];
    return violation
      ? `reached ${violation.portEffect} port ${violation.port}.${violation.method} during ${this.#phase}`
      : undefined;
  }
}

/** What `run` and `prepare` receive; the signal is made on first read (a controller per call is measurable). */
function runContext<TRight extends string, TServices>(
  call: ToolCall,
  services: TServices,
): RunContext<unknown, TRight, TServices> {
  return {
    input: call.input,
    context: call.context,
    connection: call.connection as Connection<TRight>,
    services,
    correlationId: call.correlationId,
    now: call.now,
    get signal() {
      return call.signal;
    },
  };
}

/** Runs a tool in the `run` phase and presents its value. */
export async function runTool<TRight extends string, TServices>(
  host: Host<TRight, TServices>,
  tool: ToolDefinition<TRight, TServices>,
  call: ToolCall,
  scope: CallServices<TRight, TServices> | undefined,
  unit?: unknown,
): Promise<JsonObject> {
  const { run, handle } = tool.runtime;
  if (handle) return handle(call, unit);
  if (!run || !scope) throw new Error(`Tool ${tool.name} has neither run() nor a built-in handler.`);
  scope.enter('run');
  let value: unknown;
  try {
    value = await run(runContext(call, scope.services));
  } catch (error) {
    throw scope.fault(error, call.correlationId);
  } finally {
    scope.assertClean(tool);
  }
  return assertJsonObject(tool.name, tool.runtime.presenter.present(value, { now: host.clock() }));
}

/** Renders what an outward tool would send, with every outward port closed (I9). */
export async function prepareTool<TRight extends string, TServices>(
  tool: ToolDefinition<TRight, TServices>,
  call: ToolCall,
  scope: CallServices<TRight, TServices>,
): Promise<Prepared> {
  const prepare = tool.runtime.prepare;
  if (!prepare) throw new Error(`Tool ${tool.name} has no prepare().`);
  scope.enter('prepare');
  try {
    return await prepare(runContext(call, scope.services));
  } catch (error) {
    throw scope.fault(error, call.correlationId);
  } finally {
    scope.assertClean(tool);
  }
}
