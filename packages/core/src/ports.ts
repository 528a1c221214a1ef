import { EFFECTS, type Effect } from './effects.js';
import { ConfigurationError, ToolError } from './errors.js';

/** An outbound side-effect port (mailer, pager, alert control, job queue, webhook) and its effect class. */
export interface PortSpec<TPort extends object = object> {
  readonly effect: Effect;
  readonly port: TPort;
}

/** The host's ports by name. */
export type PortMap = { readonly [name: string]: PortSpec };

/** What services receive: each port, guarded for the current call's effect class. */
export type Ports<TPorts extends PortMap> = { readonly [K in keyof TPorts]: TPorts[K]['port'] };

/** Where in a call a port is reached: a guard's check, rendering a preview, or running the tool. */
export type CallPhase = 'check' | 'prepare' | 'run';

/**
 * Whether a call of effect `call` in `phase` may reach a port of class `port` (I8):
 * read ports always; write ports while running a write or an outward tool;
 * an outward port only while running, after confirmation, a tool of the same class.
 * Only read ports are reachable while a guard checks or a preview is prepared (I9).
 */
export function portAllowed(port: Effect, call: Effect, phase: CallPhase): boolean {
  if (port === 'read') return true;
  if (phase !== 'run') return false;
  if (port === 'write') return call !== 'read';
  return port === call;
}

/** Validates port specs up front. */
export function checkPorts(ports: PortMap): void {
  for (const [name, spec] of Object.entries(ports)) {
    if (!EFFECTS.includes(spec?.effect) || typeof spec.port !== 'object' || spec.port === null) {
      throw new ConfigurationError(
        `Port ${name}: give { effect: one of ${EFFECTS.join(', ')}, port: an object }.`,
      );
    }
  }
}

/** A port reached against its class: recorded so the call fails even if tool code catches the error. */
export interface PortViolation {
  readonly port: string;
  readonly method: string;
  readonly portEffect: Effect;
}

/**
 * Wraps every port so that a method call the current effect class does not
 * allow throws `effect_violation` before reaching the port, and is recorded
 * in `violations`; an allowed call of a port that is not `read` calls
 * `reached` first (core then never runs the unit of work again on its own:
 * the port may have acted outside the transaction).
 */
export function guardPorts<TPorts extends PortMap>(
  ports: TPorts,
  effect: Effect,
  phaseOf: () => CallPhase,
  violations: PortViolation[],
  reached: () => void = () => undefined,
): Ports<TPorts> {
  const out: Record<string, object> = {};
  for (const [name, spec] of Object.entries(ports)) {
    if (spec.effect === 'read') {
      out[name] = spec.port;
      continue;
    }
    out[name] = new Proxy(spec.port, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        const phase = phaseOf();
        if (portAllowed(spec.effect, effect, phase)) {
          return function reachPort(this: unknown, ...args: unknown[]): unknown {
            reached();
            return Reflect.apply(value as (...a: unknown[]) => unknown, this, args);
          };
        }
        return () => {
          const violation = { port: name, method: String(key), portEffect: spec.effect };
          violations.push(violation);
          throw new ToolError({
            code: 'effect_violation',
            message: `A ${effect} tool${phase === 'prepare' ? ' preparing a preview' : phase === 'check' ? ' in a guard check' : ''} tried to use the ${spec.effect} port ${name}; nothing was sent.`,
            fix: 'This is a server defect: the tool is declared with the wrong effect class. Report it to the server operator.',
            details: { port: name, port_effect: spec.effect, tool_effect: effect, phase },
          });
        };
      },
    });
  }
  return out as Ports<TPorts>;
}
