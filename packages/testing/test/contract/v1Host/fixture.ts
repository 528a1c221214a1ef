import { type SdkClientKind, sdkClient } from '../../../../../test/sdkClients.js';
import type { ContractFixture } from '../../../src/index.js';
import { notesFixture } from '../host/fixture.js';
import { type NotesHost, startNotesHost } from '../host/notesHost.js';
import { serveOnV1, type V1Mode } from './serveV1.js';

/**
 * The notes host's contract fixture with its Gatehouse server hosted on SDK
 * v1 over Streamable HTTP in `mode`; every handle but the endpoint is the
 * minimal host's own. SDK v1 speaks protocol revisions up to 2025-11-25.
 * `client` picks an SDK client instead of the kit's raw one. `errors`
 * collects what the gate and the mount report to `onerror`.
 */
export function v1NotesFixture(
  mode: V1Mode,
  client?: SdkClientKind,
  errors: Error[] = [],
): ContractFixture<NotesHost> {
  const base = notesFixture();
  return {
    ...base,
    name: `${base.name} on SDK v1 (Streamable HTTP, ${mode})${client ? `, ${client} client` : ''}`,
    // #region era
    era: '2025-11-25',
    start: () => startNotesHost({}, serveOnV1(mode, errors)),
    ...(client ? { client: sdkClient(client) } : {}),
    // #endregion era
  };
}
