/**
 * Admission's time limits: one timer for every wait in flight, running only
 * while something waits; a wait past its limit rejects, others settle as
 * their work does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdmissionTimeoutError, createDeadlines } from '../src/serve/unavailable.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createDeadlines', () => {
  it('settles as the work does, and leaves no timer once nothing waits', async () => {
    vi.useFakeTimers();
    const deadlines = createDeadlines(1_000);
    const resolved = deadlines.within(Promise.resolve('ok'), 'The authenticator');
    const failed = deadlines.within(Promise.reject(new Error('store down')), 'The admission guards');
    await expect(resolved).resolves.toBe('ok');
    await expect(failed).rejects.toThrow('store down');
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects a wait past its limit, within a tick, while a shorter one still succeeds', async () => {
    vi.useFakeTimers();
    const deadlines = createDeadlines(1_000);
    const hanging = deadlines.within(new Promise<never>(() => undefined), 'The authenticator');
    const rejection = expect(hanging).rejects.toBeInstanceOf(AdmissionTimeoutError);
    let later: (value: string) => void = () => undefined;
    const slow = deadlines.within(
      new Promise<string>((resolve) => (later = resolve)),
      'The admission guards',
    );
    expect(vi.getTimerCount()).toBe(1); // one timer for both waits
    vi.advanceTimersByTime(900);
    later('in time');
    await expect(slow).resolves.toBe('in time');
    vi.advanceTimersByTime(400);
    await rejection;
    await expect(hanging).rejects.toThrow('The authenticator did not answer within 1000 ms.');
    vi.advanceTimersByTime(300);
    expect(vi.getTimerCount()).toBe(0);
  });
});
