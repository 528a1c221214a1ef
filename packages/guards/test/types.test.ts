import { describe, expectTypeOf, it } from 'vitest';
import { type InputKey, versionGuard } from '../src/index.js';

// These tests run under `tsc` (npm run typecheck): a wrong type fails CI.
type UpdateInput = { readonly id: string; readonly version: string; readonly note?: string };
type Services = { readonly notes: { current(id: string): { version: string } | undefined } };

const current = () => undefined;

describe('versionGuard types', () => {
  it('takes only a key of the tool’s input as its field', () => {
    expectTypeOf<InputKey<UpdateInput>>().toEqualTypeOf<'id' | 'version' | 'note'>();
    versionGuard<UpdateInput, Services>({ field: 'version', current });
    // @ts-expect-error a misspelt field is a compile error
    versionGuard<UpdateInput, Services>({ field: 'verzion', current });
  });

  it('takes any field while the input type is unknown', () => {
    expectTypeOf<InputKey<unknown>>().toEqualTypeOf<string>();
    versionGuard({ field: 'revision', current });
  });
});
