import {
  ConfigurationError,
  type Connection,
  defineGuard,
  type Guard,
  type JsonObject,
  refuse,
} from '@gatehousejs/core';
import { inputShape, refuseNotifyLike } from './internal/notifyLike.js';

/** Options of {@link versionGuard}. */
export interface VersionGuardOptions<TInput> {
  /**
   * The object as it is now, presented the way the caller read it, and its
   * version (the same presenter's `versionOf`); undefined when it does not
   * exist (the service then answers `not_found`).
   */
  readonly current: (query: {
    readonly input: TInput;
    readonly connection: Connection;
  }) => Promise<{ readonly version: string; readonly object: JsonObject } | undefined>;
  /** The input property carrying the version the caller read; default `version`. */
  readonly field?: string;
  /** The tool to re-read with, named in the error. */
  readonly readTool?: string;
}

/**
 * Optimistic versions (I12). An update or edit tool must take the version
 * the caller read (a required input property); a stale one answers
 * `conflict` with the current object and its version, and nothing runs. The
 * version also reaches `run` in the input, so the service can compare-and-set
 * atomically and close the gap between this check and its write.
 */
export function versionGuard<TInput>(options: VersionGuardOptions<TInput>): Guard {
  if (typeof options.current !== 'function')
    throw new ConfigurationError('versionGuard: current is required.');
  const field = options.field ?? 'version';
  return defineGuard({
    name: 'version',
    effects: ['write'],
    verify(tool) {
      const { properties, required } = inputShape(tool);
      if (!properties.has(field) || !required.has(field)) {
        throw new ConfigurationError(
          `Tool ${tool.name}: an update tool must require "${field}" in its input (I12).`,
        );
      }
      refuseNotifyLike(tool, 'update');
    },
    handle: async function version(call, next) {
      const input = call.input as TInput;
      const expected = (input as Record<string, unknown>)[field];
      const current = await options.current({ input, connection: call.connection });
      if (!current || current.version === expected) return next();
      return refuse({
        code: 'conflict',
        message: `The object changed since it was read: version ${String(expected)} is stale, the current one is ${current.version}.`,
        fix: `Review the current state in details.current and retry with ${field}: "${current.version}" if the change still applies.`,
        ...(options.readTool ? { next: { tool: options.readTool } } : {}),
        details: { current: current.object, current_version: current.version },
      });
    },
  });
}
