/**
 * The small orders product the bare servers share: two orders, a lookup that
 * fails the way a thin database wrapper does (its error names the query and
 * the connection string), and a cancel that acts at once.
 */
export const ORDERS = new Map([
  ['ord_1', { id: 'ord_1', status: 'paid', total: '42.00' }],
  ['ord_2', { id: 'ord_2', status: 'shipped', total: '17.50' }],
]);

const DATABASE_URL = 'postgres://orders:hunter2@db.internal:5432/orders';

/** Finds an order; an unknown id throws the driver's error as it is, query and connection string included. */
export function findOrder(id) {
  const order = ORDERS.get(id);
  if (!order) throw new Error(`query failed: SELECT * FROM orders WHERE id = '${id}' (${DATABASE_URL})`);
  return order;
}

/** Cancels an order and refunds it, in one call. */
export function cancelOrder(id) {
  const order = findOrder(id);
  order.status = 'cancelled';
  return `Order ${order.id} cancelled; ${order.total} refunded.`;
}

let lookups = 0;

/** Tracks an order: reads it and counts the lookup, so two calls never answer the same. */
export function trackOrder(id) {
  lookups += 1;
  return { ...findOrder(id), lookups };
}

export const DESCRIPTIONS = {
  track_order: 'Returns the tracking state of an order.',
  get_order: 'Returns one order by its id.',
  cancel_order: 'Cancels an order and refunds the customer.',
};
