import { defineGuard, type Guard, refuse } from '@gatehousejs/core';

const hasLoneSurrogate = (value: unknown): boolean => {
  if (typeof value === 'string') return /\p{Cs}/u.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, child]) => hasLoneSurrogate(key) || hasLoneSurrogate(child));
  }
  return false;
};

/**
 * Refuses arguments holding lone surrogates before any other guard runs: the
 * replay fingerprint and confirm digests hash RFC 8785 canonical JSON, which
 * cannot encode them, so without this guard such a call ends in an internal
 * error (found by the contract fuzzer, on the built-in confirm_action too).
 */
export const wellFormedText: Guard = defineGuard({
  name: 'wellFormedText',
  handle: async function wellFormedTextHandle(call, next) {
    if (!hasLoneSurrogate(call.arguments) && !hasLoneSurrogate(call.guardArguments)) return next();
    return refuse({
      code: 'invalid_arguments',
      message: 'An argument holds a lone surrogate, which is not well-formed Unicode text.',
      fix: 'Send the text as well-formed UTF-16 (every surrogate paired).',
    });
  },
});
