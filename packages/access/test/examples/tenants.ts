// An example of the package README; the region below is quoted there verbatim.
// #region readme
import { chooseTenant } from '@gatehousejs/access';

// A credential that serves two workspaces: the transport (URL path or header) must name one
// of them; a tenant the credential does not serve is refused (I3).
export const named = chooseTenant(['ws_1', 'ws_2'], 'ws_2'); // { ok: true, tenantId: 'ws_2' }
export const unnamed = chooseTenant(['ws_1', 'ws_2'], undefined); // { ok: false, reason }: answer 403
export const foreign = chooseTenant(['ws_1'], 'ws_2'); // { ok: false, reason }: answer 403
// #endregion readme
