import type { ToolDefinition } from '@gatehousejs/core';
import type { Right } from '../../domain/model.js';
import { technicianListPresenter } from '../../presenters.js';
import { findTechniciansInput } from '../../schemas.js';
import type { Services } from '../../services/index.js';
import type { BookingGatehouse } from '../gatehouse.js';

/** `find_technicians`: who can be booked or paged. */
export function technicianTools(gh: BookingGatehouse): ToolDefinition<Right, Services>[] {
  return [
    gh.defineTool({
      name: 'find_technicians',
      title: 'Find technicians',
      description: 'Lists the technicians of this workspace and whether each is on call.',
      effect: 'read',
      requires: ['bookings.read'],
      input: findTechniciansInput,
      presenter: technicianListPresenter,
      run: async ({ input, services }) => ({ technicians: await services.technicians.find(input.on_call) }),
    }),
  ];
}
