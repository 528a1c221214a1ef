import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from '../types.js';
import { isResponse } from './jsonRpc.js';

interface Waiter {
  readonly exclusive: boolean;
  readonly matches: (message: JsonRpcMessage) => boolean;
  readonly resolve: (message: JsonRpcMessage) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Hands incoming messages to whoever waits for them. A response goes to the oldest response
 * waiter for its id only, so two requests sent with the same id get one response each; plain
 * watchers see every message they match. Once failed (the peer is gone), every current and
 * later wait rejects with that error.
 */
export class MessageRouter {
  readonly #waiters: Waiter[] = [];
  #failure: Error | undefined;

  /** Waits for the next message `matches` accepts; rejects after `timeoutMs`. */
  waitFor(
    matches: (message: JsonRpcMessage) => boolean,
    timeoutMs: number,
    what: string,
    exclusive = false,
  ): Promise<JsonRpcMessage> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise<JsonRpcMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#remove(waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = { exclusive, matches, resolve, reject, timer };
      this.#waiters.push(waiter);
    });
  }

  /** Waits for the response carrying `id`. */
  async waitForResponse(id: JsonRpcId, timeoutMs: number): Promise<JsonRpcResponse> {
    const isMatch = (message: JsonRpcMessage): boolean => isResponse(message) && message.id === id;
    const message = await this.waitFor(isMatch, timeoutMs, `response with id ${JSON.stringify(id)}`, true);
    return message as JsonRpcResponse;
  }

  /** Delivers one message to every matching watcher and to the oldest matching response waiter. */
  deliver(message: JsonRpcMessage): void {
    const exclusive = this.#waiters.find((waiter) => waiter.exclusive && waiter.matches(message));
    const watchers = this.#waiters.filter((waiter) => !waiter.exclusive && waiter.matches(message));
    for (const waiter of exclusive === undefined ? watchers : [exclusive, ...watchers]) {
      this.#remove(waiter);
      waiter.resolve(message);
    }
  }

  /** Rejects every waiter with `error`, now and from now on. */
  fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(this.#failure);
    }
  }

  #remove(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    const index = this.#waiters.indexOf(waiter);
    if (index !== -1) this.#waiters.splice(index, 1);
  }
}
