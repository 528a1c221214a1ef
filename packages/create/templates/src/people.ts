import type { PeopleSource, Standing } from '@gatehousejs/access';

/** The rights vocabulary: what a token or a person may do. Tools name the rights they require. */
export const RIGHTS = [
  'tickets.read',
  'tickets.write',
  'requesters.email',
  // #if console
  'tickets.delete',
  // #endif
] as const;
export type Right = (typeof RIGHTS)[number];

/** A role in a workspace and the rights it grants. */
export type Role = 'owner' | 'agent' | 'viewer';

const ROLE_RIGHTS: Readonly<Record<Role, readonly Right[]>> = {
  owner: RIGHTS,
  agent: ['tickets.read', 'tickets.write', 'requesters.email'],
  viewer: ['tickets.read'],
};

/** A workspace: the tenant a token is bound to. */
export interface Workspace {
  readonly id: string;
  readonly name: string;
}

/** A person of the product, with a role in one workspace. */
export interface Person {
  readonly id: string;
  readonly name: string;
  readonly workspaceId: string;
  role: Role;
  active: boolean;
  /** Runs the deployment: may turn the global kill switch on and off. */
  readonly operator?: boolean;
}

/** The demo workspaces: every token is bound to one of them. */
export const WORKSPACES: readonly Workspace[] = [
  { id: 'ws_acme', name: 'Acme' },
  { id: 'ws_globex', name: 'Globex' },
];

/** The demo people: an owner in each workspace. */
export function demoPeople(): Person[] {
  return [
    { id: 'p_ada', name: 'Ada', workspaceId: 'ws_acme', role: 'owner', active: true, operator: true },
    { id: 'p_bea', name: 'Bea', workspaceId: 'ws_globex', role: 'owner', active: true },
  ];
}

/**
 * The product's people and their roles, asked on every MCP request (live
 * rights, I4): a removed role or a deactivated person stops a token at its
 * next call. Replace it with your product's accounts.
 */
export class People implements PeopleSource<Right> {
  readonly #people: Map<string, Person>;

  constructor(people: readonly Person[] = demoPeople()) {
    this.#people = new Map(people.map((p) => [p.id, { ...p }]));
  }

  /** The person's standing in a workspace now; `undefined` when they are not in it. */
  async current(tenantId: string, personId: string): Promise<Standing<Right> | undefined> {
    const person = this.#people.get(personId);
    if (!person || person.workspaceId !== tenantId) return undefined;
    return { active: person.active, rights: ROLE_RIGHTS[person.role] };
  }

  get(personId: string): Person | undefined {
    return this.#people.get(personId);
  }

  /** The rights a person holds now (none when inactive). */
  rightsOf(person: Person): readonly Right[] {
    return person.active ? ROLE_RIGHTS[person.role] : [];
  }

  setRole(personId: string, role: Role): void {
    const person = this.#people.get(personId);
    if (person) person.role = role;
  }

  deactivate(personId: string): void {
    const person = this.#people.get(personId);
    if (person) person.active = false;
  }
}
