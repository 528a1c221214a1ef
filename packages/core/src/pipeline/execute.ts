import type { Connection } from '../context.js';
import { ToolError } from '../errors.js';
import type { JsonObject } from '../json.js';
import { type CallPhase, guardPorts, type PortMap, type Ports, type PortViolation } from '../ports.js';
import { type AuditStore, auditRow } from '../storage/auditStore.js';
import { assertJsonObject, type Prepared, type RunContext, type ToolDefinition } from '../tool.js';
import type { ToolCall } from './guard.js';

/** What running a tool needs from the server. */
export interface Runner<TRight extends string, TServices> {
  readonly services: (connection: Connection<TRight>, ports: Ports<PortMap>) => TServices;
  readonly ports: PortMap;
  readonly audit: AuditStore | undefined;
  readonly clock: () => Date;
  /** Reports an unexpected failure that did not stop the call (e.g. an audit row that could not be written). */
  readonly report: (error: unknown, correlationId: string) => void;
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

/** Appends one audit row (I15). A failure to write it is reported, never hidden from the operator. */
export async function audit<TRight extends string, TServices>(
  runner: Runner<TRight, TServices>,
  call: ToolCall,
  entry: {
    readonly action: string;
    readonly outcome: 'ok' | 'violation';
    readonly objectIds: readonly string[];
    readonly note?: string | undefined;
  },
): Promise<void> {
  if (!runner.audit) return;
  const { connection } = call;
  try {
    await runner.audit.append(
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
        runner.clock().getTime(),
      ),
    );
  } catch (error) {
    runner.report(error, call.correlationId);
  }
}

/** Calls `work` with the run context, its services' ports guarded for the call's effect and phase (I8). */
async function withPorts<TRight extends string, TServices, T>(
  runner: Runner<TRight, TServices>,
  tool: ToolDefinition<TRight, TServices>,
  call: ToolCall,
  phase: CallPhase,
  work: (context: RunContext<unknown, TRight, TServices>) => Promise<T> | T,
): Promise<T> {
  const violations: PortViolation[] = [];
  const connection = call.connection as Connection<TRight>;
  const services = runner.services(connection, guardPorts(runner.ports, tool.effect, phase, violations));
  const { input, signal, correlationId, now } = call;
  let result: T | undefined;
  let failure: unknown;
  try {
    result = await work({ input, connection, services, signal, correlationId, now });
  } catch (error) {
    failure = error;
  }
  const violation = violations[0];
  if (violation) {
    await audit(runner, call, {
      action: tool.name,
      outcome: 'violation',
      objectIds: [],
      note: `reached ${violation.portEffect} port ${violation.port}.${violation.method} during ${phase}`,
    });
    throw ToolError.is(failure) && failure.code === 'effect_violation'
      ? failure
      : new ToolError({
          code: 'effect_violation',
          message: `${tool.name} reached the ${violation.portEffect} port ${violation.port}; nothing was sent.`,
          fix: 'This is a server defect: the tool is declared with the wrong effect class. Report it to the server operator.',
          details: {
            port: violation.port,
            port_effect: violation.portEffect,
            tool_effect: tool.effect,
            phase,
          },
        });
  }
  if (failure !== undefined) throw failure;
  return result as T;
}

/** Runs a tool and presents its value. */
export async function runTool<TRight extends string, TServices>(
  runner: Runner<TRight, TServices>,
  tool: ToolDefinition<TRight, TServices>,
  call: ToolCall,
): Promise<JsonObject> {
  const { run, handle } = tool.runtime;
  if (handle) return handle(call);
  if (!run) throw new Error(`Tool ${tool.name} has neither run() nor a built-in handler.`);
  const value = await withPorts(runner, tool, call, 'run', run);
  return assertJsonObject(tool.name, tool.runtime.presenter.present(value, { now: runner.clock() }));
}

/** Renders what an outward tool would send, with every outward port closed (I9). */
export function prepareTool<TRight extends string, TServices>(
  runner: Runner<TRight, TServices>,
  tool: ToolDefinition<TRight, TServices>,
  call: ToolCall,
): Promise<Prepared> {
  const prepare = tool.runtime.prepare;
  if (!prepare) throw new Error(`Tool ${tool.name} has no prepare().`);
  return withPorts(runner, tool, call, 'prepare', prepare);
}
