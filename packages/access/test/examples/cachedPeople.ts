// An example of the package README; the region below is quoted there verbatim.
// #region readme
import { cachedPeople, type PeopleSource } from '@gatehousejs/access';

// Your people data, when it cannot be read on every request (a remote directory, say).
export const directory = new Map([['ws_1/ada', ['notes.read']]]);
const remote: PeopleSource = {
  current: async (tenantId, personId) => {
    const rights = directory.get(`${tenantId}/${personId}`);
    return rights && { active: true, rights };
  },
};

// This weakens I4: a removed role keeps working for up to ttlMs. Keep it short.
export const people = cachedPeople(remote, { ttlMs: 5_000 });
// #endregion readme
