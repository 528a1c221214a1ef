import type { Outcome } from '../contract/outcome.js';
import { ToolError, type ToolErrorInit } from '../errors.js';
import type { RequestSpan, StageName, StageSpan } from '../telemetry.js';

/** Ends a stage's span with what the stage decided. */
export type Decide<T> = (value: T, stage: StageSpan) => void;

/** Runs one stage of a call; with telemetry, inside a span of its own. Await what it returns. */
export type Trace = <T>(name: StageName, work: () => Promise<T> | T, decide: Decide<T>) => Promise<T> | T;

/** A refusal thrown inside a unit of work, so it rolls back; turned back into an outcome outside. */
export class UnitRefusal extends Error {
  constructor(readonly error: ToolErrorInit) {
    super(error.message);
  }
}

const codeOf = (error: unknown): string =>
  error instanceof UnitRefusal ? error.error.code : ToolError.is(error) ? error.code : 'internal_error';

/** Without telemetry a stage is its work: nothing is allocated for spans, no promise is added. */
const untraced: Trace = (_name, work) => work();

/**
 * The one place stages meet telemetry: a call's `trace` runs each stage
 * inside a span of its own when the call has one (`decide` ends it from
 * the stage's value; a thrown error ends it refused with the error's
 * code), and runs the stage bare when it has none.
 */
export function tracer(span: RequestSpan | undefined): Trace {
  if (!span) return untraced;
  return <T>(name: StageName, work: () => Promise<T> | T, decide: Decide<T>): Promise<T> => {
    const stage = span.stage(name);
    const refused = (error: unknown): never => {
      stage.end('refuse', codeOf(error));
      throw error;
    };
    let started: Promise<T> | T;
    try {
      started = work();
    } catch (error) {
      return Promise.reject(error).catch(refused);
    }
    return Promise.resolve(started).then((value) => {
      decide(value, stage);
      return value;
    }, refused);
  };
}

/** A stage that answers a refusal or nothing. */
export const byRefusal: Decide<ToolErrorInit | undefined> = (refused, stage) =>
  refused ? stage.end('refuse', refused.code) : stage.end('pass');

/** A stage that answers an outcome. */
export const byOutcome: Decide<Outcome> = (outcome, stage) =>
  outcome.kind === 'refused' ? stage.end('refuse', outcome.error.code) : stage.end('pass');

/** A stage that answers a value or throws its refusal. */
export const passed: Decide<unknown> = (_value, stage) => stage.end('pass');

/** A stage that answers `{ ok }` with a refusal's code. */
export const byOk: Decide<{ readonly ok: boolean; readonly error?: ToolErrorInit }> = (value, stage) =>
  value.ok ? stage.end('pass') : stage.end('refuse', value.error?.code);
