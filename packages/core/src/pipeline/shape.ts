import type { PlannedTool } from '../contract/guard.js';
import { ConfigurationError } from '../errors.js';
import type { JsonObject } from '../json.js';

const NOTIFY_LIKE =
  /^(notify|notification|send|email|mail|sms|message|page|alert)(_|$)|_(notify|notification|email|mail|sms|message)$/;

/** Refuses an edit/update tool with a notify-like parameter: edits are silent (I11). */
export function refuseNotifyLike(tool: PlannedTool, role: string): void {
  const names = Object.keys((tool.inputSchema.properties as JsonObject | undefined) ?? {});
  const found = names.find((name) => NOTIFY_LIKE.test(name.toLowerCase()));
  if (found) {
    throw new ConfigurationError(
      `Tool ${tool.name}: ${role} tools are silent and may not take "${found}"; notifying is a separate notify tool (I11).`,
    );
  }
}

/** Property names and required list of a planned tool's input. */
export function inputShape(tool: PlannedTool): { properties: Set<string>; required: Set<string> } {
  return {
    properties: new Set(Object.keys((tool.inputSchema.properties as JsonObject | undefined) ?? {})),
    required: new Set((tool.inputSchema.required as string[] | undefined) ?? []),
  };
}
