import type { RequestEnd, RequestFacts } from '../telemetry.js';
import type { Counter, Histogram, Meter } from './api.js';
import { ATTR, errorAttributes, errorCodeOf, operationAttributes, toolNameOf } from './attributes.js';

/** The conventions' advised bucket boundaries of `mcp.server.operation.duration`, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The instruments, created once per {@link openTelemetry} call. */
export interface Instruments {
  readonly duration: Histogram;
  readonly refusals: Counter;
  readonly replays: Counter;
  readonly previews: Counter;
  readonly confirmations: Counter;
  readonly approvals: Counter;
  readonly admissionRefusals: Counter;
}

/** Creates the histogram and the counters on the host's meter. */
export function createInstruments(meter: Meter): Instruments {
  const counter = (name: string, description: string) =>
    meter.createCounter(name, { description, unit: '{call}' });
  return {
    duration: meter.createHistogram('mcp.server.operation.duration', {
      description: 'MCP request duration as observed on the server, from receipt until the result is sent.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    refusals: counter('gatehouse.refusals', 'Tool calls refused with a Gatehouse error code.'),
    replays: counter('gatehouse.replays', 'Tool calls answered with the first result of an earlier call.'),
    previews: counter(
      'gatehouse.previews',
      'Outward tool calls that stored a pending action and returned a preview.',
    ),
    confirmations: counter('gatehouse.confirmations', 'confirm_action calls that executed a pending action.'),
    approvals: meter.createCounter('gatehouse.approvals', {
      description: "A person's decisions on pending actions, on the host's approval page.",
      unit: '{decision}',
    }),
    admissionRefusals: meter.createCounter('gatehouse.admission.refusals', {
      description:
        'Requests refused before any tool ran: at admission (401, 403, 503) or as protocol mistakes (400, 413).',
      unit: '{request}',
    }),
  };
}

/** Records one ended request: its duration and the counter its outcome belongs to. */
export function recordRequest(
  instruments: Instruments,
  facts: RequestFacts,
  end: RequestEnd,
  seconds: number,
): void {
  const operation = operationAttributes(facts, end.code);
  instruments.duration.record(seconds, {
    ...operation,
    [ATTR.outcome]: end.outcome,
    ...errorAttributes(end),
  });
  const tool = facts.method === 'tools/call' ? { [ATTR.toolName]: toolNameOf(facts, end.code) } : {};
  if (end.outcome === 'refused') {
    instruments.refusals.add(1, { ...tool, [ATTR.errorCode]: errorCodeOf(end) ?? 'unknown' });
  }
  if (end.outcome === 'replayed') instruments.replays.add(1, tool);
  if (end.outcome === 'preview') instruments.previews.add(1, tool);
  if (end.confirmed) instruments.confirmations.add(1, tool);
}
