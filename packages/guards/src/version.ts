import {
  ALLOW,
  ConfigurationError,
  type Connection,
  type Decision,
  defineGuard,
  deny,
  type JsonObject,
  type UnitGuard,
} from '@gatehousejs/core';
import { inputShape, refuseNotifyLike } from '@gatehousejs/core/internal';

/** The string keys of a tool's input type; any string while the type is unknown. */
export type InputKey<TInput> = unknown extends TInput ? string : Extract<keyof TInput, string>;

/** Options of {@link versionGuard}. */
export interface VersionGuardOptions<TInput, TServices> {
  /**
   * The object as it is now, presented the way the caller read it, and its
   * version (the same presenter's `versionOf`); undefined when it does not
   * exist (the service then answers `not_found`). Runs inside the unit of
   * work, on the call's own services.
   */
  readonly current: (query: {
    readonly input: TInput;
    readonly services: TServices;
    readonly connection: Connection;
    /** The call's time, for presenting the object the way a read would. */
    readonly now: Date;
  }) =>
    | Promise<{ readonly version: string; readonly object: JsonObject } | undefined>
    | { readonly version: string; readonly object: JsonObject }
    | undefined;
  /**
   * The input property carrying the version the caller read; default
   * `version`. With the tool's input type given, one of its keys: a misspelt
   * field is a compile error.
   */
  readonly field?: InputKey<TInput>;
  /** The tool to re-read with, named in the error. */
  readonly readTool?: string;
}

/**
 * Optimistic versions (I12), a check-then-act guard: it runs inside the unit
 * of work, so its read and the tool's write commit together. An update or
 * edit tool must take the version the caller read (a required input
 * property); a stale one answers `conflict` with the current object and its
 * version, and nothing runs. The version also reaches `run` in the input, so
 * the service can compare-and-set in the same statement as its write.
 */
export function versionGuard<TInput, TServices>(
  options: VersionGuardOptions<TInput, TServices>,
): UnitGuard<TInput, TServices> {
  if (typeof options?.current !== 'function')
    throw new ConfigurationError('versionGuard: current is required.');
  const field = options.field ?? 'version';
  return defineGuard<TInput, TServices>({
    kind: 'unit',
    name: 'version',
    effects: ['write'],
    verify(tool, _tools, build) {
      const { properties, required } = inputShape(tool);
      if (!properties.has(field) || !required.has(field)) {
        throw new ConfigurationError(
          `Tool ${tool.name}: an update tool must require "${field}" in its input (I12).`,
        );
      }
      refuseNotifyLike(tool, 'update', build);
    },
    async check({ input, services, connection, now }): Promise<Decision> {
      const expected = (input as Record<string, unknown>)[field];
      const current = await options.current({ input, services, connection, now });
      if (!current || current.version === expected) return ALLOW;
      return deny({
        code: 'conflict',
        message: `The object changed since it was read: version ${String(expected)} is stale, the current one is ${current.version}.`,
        fix: `Review the current state in details.current and retry with ${field}: "${current.version}" if the change still applies.`,
        ...(options.readTool ? { next: { tool: options.readTool } } : {}),
        details: { current: current.object, current_version: current.version },
      });
    },
  });
}
