import type { Booking } from '../domain/model.js';
import {
  bookingListPresenter,
  bookingPresenter,
  customerListPresenter,
  customerPresenter,
  deletedBookingPresenter,
  technicianListPresenter,
} from '../presenters.js';
import {
  bookingFilterOf,
  createBookingInput,
  findBookingsInput,
  findCustomersInput,
  findTechniciansInput,
  newBookingOf,
  updateBookingInput,
} from '../schemas.js';
import { apiWrite, type Route, type RouteContext, servicesOf } from './context.js';
import { parseWith, queryOf } from './http.js';

const now = (context: RouteContext) => ({ now: context.app.deps.clock() });
const param = (context: RouteContext) => context.params.id ?? '';

/**
 * The product's REST API for its UI and integrations: the same services and
 * argument shapes as the MCP tools (I1), with the product's own credentials.
 */
export const PRODUCT_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/customers',
    auth: 'any',
    right: 'customers.read',
    handle: async (c) => {
      const input = parseWith(findCustomersInput, queryOf(c.url, ['limit']));
      const customers = await servicesOf(c).customers.find(input.query, input.limit);
      return { status: 200, body: customerListPresenter.present({ customers }, now(c)) };
    },
  },
  {
    method: 'GET',
    path: '/api/customers/:id',
    auth: 'any',
    right: 'customers.read',
    handle: async (c) => ({
      status: 200,
      body: customerPresenter.present(await servicesOf(c).customers.get(param(c)), now(c)),
    }),
  },
  {
    method: 'GET',
    path: '/api/technicians',
    auth: 'any',
    right: 'bookings.read',
    handle: async (c) => {
      const onCall = c.url.searchParams.get('on_call');
      const input = parseWith(findTechniciansInput, onCall === null ? {} : { on_call: onCall === 'true' });
      const technicians = await servicesOf(c).technicians.find(input.on_call);
      return { status: 200, body: technicianListPresenter.present({ technicians }, now(c)) };
    },
  },
  {
    method: 'GET',
    path: '/api/bookings',
    auth: 'any',
    right: 'bookings.read',
    handle: async (c) => {
      const input = parseWith(findBookingsInput, queryOf(c.url, ['limit']));
      const bookings = await servicesOf(c).bookings.find(bookingFilterOf(input), input.limit);
      return { status: 200, body: bookingListPresenter.present({ bookings }, now(c)) };
    },
  },
  {
    method: 'GET',
    path: '/api/bookings/:id',
    auth: 'any',
    right: 'bookings.read',
    handle: async (c) => ({
      status: 200,
      body: bookingPresenter.present(await servicesOf(c).bookings.get(param(c)), now(c)),
    }),
  },
  {
    method: 'POST',
    path: '/api/bookings',
    auth: 'any',
    right: 'bookings.write',
    handle: async (c) => {
      const input = parseWith(createBookingInput, await c.body());
      const booking = await apiWrite<Booking>(
        c,
        'booking.create',
        (b) => [b.id],
        (services) => services.bookings.create(newBookingOf(input)),
      );
      return { status: 201, body: bookingPresenter.present(booking, now(c)) };
    },
  },
  {
    method: 'PATCH',
    path: '/api/bookings/:id',
    auth: 'any',
    right: 'bookings.write',
    handle: async (c) => {
      const input = parseWith(updateBookingInput.omit({ id: true }), await c.body());
      const booking = await apiWrite<Booking>(
        c,
        'booking.update',
        (b) => [b.id],
        (services) =>
          services.bookings.update(param(c), input.version, {
            technicianId: input.technician_id,
            startsAt: input.starts_at,
            durationMinutes: input.duration_minutes,
            price: input.price,
            status: input.status,
          }),
      );
      return { status: 200, body: bookingPresenter.present(booking, now(c)) };
    },
  },
  {
    method: 'DELETE',
    path: '/api/bookings/:id',
    auth: 'any',
    right: 'bookings.delete',
    handle: async (c) => {
      const deleted = await apiWrite<Booking>(
        c,
        'booking.delete',
        (b) => [b.id],
        (services) => services.bookings.remove(param(c)),
      );
      return { status: 200, body: deletedBookingPresenter.present({ deleted }, now(c)) };
    },
  },
];
