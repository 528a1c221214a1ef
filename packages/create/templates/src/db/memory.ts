import {
  MemoryAuditStore,
  MemoryCredentialStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
} from '@gatehousejs/core';
import type { Mail, Ticket } from '../tickets/model.js';
import { type Database, SEED_TICKETS, type TicketRepository } from './database.js';

/** The tickets of one workspace in an array shared by every call. */
function repository(rows: Ticket[], workspaceId: string): TicketRepository {
  const mine = () => rows.filter((t) => t.workspaceId === workspaceId);
  const at = (id: string) => rows.findIndex((t) => t.id === id && t.workspaceId === workspaceId);
  return {
    async find(titleContains, limit) {
      const needle = titleContains?.toLowerCase();
      return mine()
        .filter((t) => needle === undefined || t.title.toLowerCase().includes(needle))
        .sort((a, b) => a.title.localeCompare(b.title))
        .slice(0, limit);
    },
    get: async (id) => mine().find((t) => t.id === id),
    byTitle: async (title) => mine().find((t) => t.title === title),
    async insert(ticket) {
      rows.push(ticket);
    },
    async update(id, changes) {
      const i = at(id);
      const current = rows[i];
      if (!current) return undefined;
      const updated = { ...current, ...changes, revision: current.revision + 1 };
      rows[i] = updated;
      return updated;
    },
    async remove(id) {
      const i = at(id);
      if (i < 0) return false;
      rows.splice(i, 1);
      return true;
    },
  };
}

/**
 * Everything in this process's memory: gone when it stops, and each write
 * commits on its own (`separateCommits()`: a write may stand without its
 * audit row if the process dies between them). For demos and tests.
 */
export async function openDatabase(): Promise<Database<undefined>> {
  const tickets: Ticket[] = SEED_TICKETS.map((t) => ({ ...t }));
  const mails: Mail[] = [];
  return {
    engine: 'memory',
    location: 'memory (gone when the server stops)',
    stores: {
      replay: new MemoryReplayStore(),
      pendingActions: new MemoryPendingActionStore(),
      audit: new MemoryAuditStore(),
      switches: new MemorySwitchStore(),
      rateBuckets: new MemoryRateBucketStore(),
      credentials: new MemoryCredentialStore(),
    },
    unitOfWork: separateCommits(),
    tickets: (workspaceId) => repository(tickets, workspaceId),
    outbox: {
      async append(mail) {
        mails.push(mail);
      },
    },
    all: {
      tickets: async () => tickets.map((t) => ({ ...t })),
      mails: async () => mails.map((m) => ({ ...m })),
      async patch(id, fields) {
        const i = tickets.findIndex((t) => t.id === id);
        const current = tickets[i];
        if (current) tickets[i] = { ...current, ...fields, revision: current.revision + 1 };
      },
    },
    housekeeping: async () => {}, // the memory stores evict expired entries as they go
    close: async () => {},
  };
}

/** A fresh database for one test. */
export const openScratchDatabase = openDatabase;
