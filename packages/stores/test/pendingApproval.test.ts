// Approval by a person (I9) on the two bundled engines: the decision a
// transition writes joins the unit of work (kept on commit, gone on rollback),
// the columns hold what the docs say, the sync twins match the interface, and
// a bad list limit is refused. The shared contract is in contract.test.ts and
// postgresContract.test.ts.
import {
  ConfigurationError,
  type PendingAction,
  type PendingActionStore,
  type UnitOfWork,
} from '@gatehousejs/core';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStores, type SqliteDatabase } from '../src/index.js';
import { createPostgresStores, type PostgresStores } from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';
import { pendingAction } from './fixtures/records.js';

const available = await postgresAvailable();

/** A person action awaiting its decision. */
const awaiting = (id: string, overrides: Partial<PendingAction> = {}): PendingAction =>
  pendingAction(id, { approval: 'person', creatorId: 'p1', ...overrides });

const RESULT = { booking: { id: 'b1', state: 'cancelled' }, lines: [1, 2], note: null };
const DECISION = { result: RESULT, decidedBy: 'p2', decidedAt: 1_234 };

/** The approval columns of one row, as the engine returns them. */
interface ApprovalRow {
  readonly status: string;
  readonly approval: string;
  readonly creator_id: string | null;
  readonly result: string | null;
  readonly decided_by: string | null;
  readonly decided_at: number | null;
}

const ROW_SQL =
  'SELECT status, approval, creator_id, result, decided_by, decided_at FROM gatehouse_pending_actions WHERE id = ';

const UNDECIDED: ApprovalRow = {
  status: 'pending',
  approval: 'person',
  creator_id: 'p1',
  result: null,
  decided_by: null,
  decided_at: null,
};
const EXECUTED: ApprovalRow = {
  status: 'executed',
  approval: 'person',
  creator_id: 'p1',
  result: JSON.stringify(RESULT),
  decided_by: 'p2',
  decided_at: 1_234,
};

/** The checks both engines share; `row` reads the approval columns of an action. */
function describeEngine<THandle>(
  open: () => Promise<{
    store: PendingActionStore;
    unitOfWork: UnitOfWork<THandle>;
    row: (id: string) => Promise<ApprovalRow | undefined>;
  }>,
): void {
  it('writes a decision made inside a unit of work only when the unit commits', async () => {
    const { store, unitOfWork, row } = await open();
    await store.insert(awaiting('pa1'));
    const failed = unitOfWork.run(async (unit) => {
      expect(await store.transition('pa1', ['pending'], 'executed', unit, DECISION)).toBe(true);
      throw new Error('the service failed after the approval executed');
    });
    await expect(failed).rejects.toThrow(/service failed/);
    expect(await row('pa1')).toEqual(UNDECIDED);
    expect(await store.findById?.('pa1')).toStrictEqual(awaiting('pa1'));
    expect(await store.listAwaitingApproval?.('t1', 0, 10)).toEqual([awaiting('pa1')]);

    await unitOfWork.run((unit) => store.transition('pa1', ['pending'], 'executed', unit, DECISION));
    expect(await row('pa1')).toEqual(EXECUTED);
    expect(await store.findById?.('pa1')).toStrictEqual(awaiting('pa1', { ...DECISION, status: 'executed' }));
    expect(await store.listAwaitingApproval?.('t1', 0, 10)).toEqual([]);
  });

  it('writes a model action with approval "model" and empty decision columns', async () => {
    const { store, row } = await open();
    await store.insert(pendingAction('pa1'));
    await store.insert(pendingAction('pa2', { approval: 'model' }));
    const model = { ...UNDECIDED, approval: 'model', creator_id: null };
    expect(await row('pa1')).toEqual(model);
    expect(await row('pa2')).toEqual(model);
    // Absent means model: both read back without the field.
    expect(await store.findById?.('pa2')).toStrictEqual(pendingAction('pa2'));
  });

  it('refuses a list limit that is not a non-negative integer, naming the fix', async () => {
    const { store } = await open();
    for (const limit of [-1, 1.5, Number.NaN]) {
      const listed = store.listAwaitingApproval?.('t1', 0, limit) ?? Promise.resolve();
      await expect(listed).rejects.toThrow(/pass a non-negative integer/);
      await expect(listed).rejects.toSatisfy(ConfigurationError.is);
    }
  });
}

describe('SqlitePendingActionStore, approval by a person', () => {
  const memory = (): SqliteDatabase => new Database(':memory:');

  describeEngine(async () => {
    const db = memory();
    const stores = createSqliteStores(db);
    return {
      store: stores.pendingActions,
      unitOfWork: stores.unitOfWork,
      row: async (id) => db.prepare<[string], ApprovalRow>(`${ROW_SQL}?`).get(id),
    };
  });

  it('has synchronous twins that keep the contract inside the host’s own transaction', () => {
    const db = memory();
    const { pendingActions: store } = createSqliteStores(db);
    store.insertSync(awaiting('pa1'));
    store.insertSync(awaiting('pa2', { createdAt: 5 }));
    const decide = db.transaction((fail: boolean) => {
      expect(store.transitionSync('pa1', ['pending'], 'executed', DECISION)).toBe(true);
      expect(store.transitionSync('pa1', ['pending'], 'rejected', { decidedBy: 'p9' })).toBe(false);
      if (fail) throw new Error('the host refused after deciding');
    });
    expect(() => decide.immediate(true)).toThrow(/refused/);
    expect(store.findByIdSync('pa1')).toStrictEqual(awaiting('pa1'));
    expect(store.listAwaitingApprovalSync('t1', 0, 10).map((a) => a.id)).toEqual(['pa1', 'pa2']);
    decide.immediate(false);
    expect(store.findByIdSync('pa1')).toStrictEqual(awaiting('pa1', { ...DECISION, status: 'executed' }));
    expect(store.listAwaitingApprovalSync('t1', 0, 10)).toEqual([awaiting('pa2', { createdAt: 5 })]);
    expect(store.findByIdSync('nope')).toBeUndefined();
    expect(() => store.listAwaitingApprovalSync('t1', 0, -1)).toThrow(ConfigurationError);
  });

  it('answers the awaiting list from its index', () => {
    const db = memory();
    createSqliteStores(db);
    const plan = db
      .prepare<[], { detail: string }>(
        `EXPLAIN QUERY PLAN SELECT * FROM gatehouse_pending_actions
         WHERE tenant_id = 't1' AND approval = 'person' AND status = 'pending' AND expires_at > 0
         ORDER BY created_at, id LIMIT 10`,
      )
      .all()
      .map((step) => step.detail);
    expect(plan.join('\n')).toMatch(/USING INDEX gatehouse_pending_actions_awaiting/);
  });
});

describe.skipIf(!available)('PostgresPendingActionStore, approval by a person', () => {
  let database: TestDatabase;
  let stores: PostgresStores;
  beforeAll(async () => {
    database = await createTestDatabase();
    stores = await createPostgresStores(database.pool);
  });
  beforeEach(() => database.pool.query('TRUNCATE gatehouse_pending_actions'));
  afterAll(() => database?.drop());

  describeEngine(async () => ({
    store: stores.pendingActions,
    unitOfWork: stores.unitOfWork,
    row: async (id) => (await database.pool.query<ApprovalRow>(`${ROW_SQL}$1`, [id])).rows[0],
  }));
});
