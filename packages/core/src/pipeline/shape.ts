import type { BuildContext, GuardedTool } from '../contract/call.js';
import { ConfigurationError } from '../errors.js';
import type { JsonObject } from '../json.js';

/**
 * Refuses an edit/update tool with a notify-like parameter, by the server's
 * conventions: edits are silent (I11). Nothing when the rule is off.
 */
export function refuseNotifyLike(tool: GuardedTool, role: string, build: BuildContext): void {
  const pattern = build.conventions.notifyLikeParameter;
  if (!pattern) return;
  const names = Object.keys((tool.inputSchema.properties as JsonObject | undefined) ?? {});
  const found = names.find((name) => pattern.test(name.toLowerCase()));
  if (found) {
    throw new ConfigurationError(
      `Tool ${tool.name}: ${role} tools are silent and may not take "${found}"; notifying is a separate notify tool (I11).`,
    );
  }
}

/** Property names and required list of a planned tool's input. */
export function inputShape(tool: GuardedTool): { properties: Set<string>; required: Set<string> } {
  return {
    properties: new Set(Object.keys((tool.inputSchema.properties as JsonObject | undefined) ?? {})),
    required: new Set((tool.inputSchema.required as string[] | undefined) ?? []),
  };
}
