import type { ToolDefinition } from '@gatehousejs/core';
import type { Right } from '../../domain/model.js';
import { customerListPresenter, customerPresenter } from '../../presenters.js';
import { findCustomersInput, getCustomerInput } from '../../schemas.js';
import type { Services } from '../../services/index.js';
import type { BookingGatehouse } from '../gatehouse.js';

/** `find_customers` and `get_customer`: reads through the customer service. */
export function customerTools(gh: BookingGatehouse): ToolDefinition<Right, Services>[] {
  return [
    gh.defineTool({
      name: 'find_customers',
      title: 'Find customers',
      description: 'Lists customers of this workspace whose name or e-mail contains the query, by name.',
      effect: 'read',
      requires: ['customers.read'],
      input: findCustomersInput,
      presenter: customerListPresenter,
      run: async ({ input, services }) => ({
        customers: await services.customers.find(input.query, input.limit),
      }),
    }),
    gh.defineTool({
      name: 'get_customer',
      title: 'Get a customer',
      description: 'Returns one customer with contact details, their own notes and the version to cite.',
      effect: 'read',
      requires: ['customers.read'],
      input: getCustomerInput,
      presenter: customerPresenter,
      run: ({ input, services }) => services.customers.get(input.id),
    }),
  ];
}
