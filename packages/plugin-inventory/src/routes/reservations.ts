import { ADMIN, errorResponses, filtersOf, listOf } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { ReservationListQuery, ReservationOut } from '../schemas/reservation.js';
import { Reservations, type ReservationFilter } from '../services/reservations.js';
import { reservationOut } from './serialize.js';

/** Reservations are made by the order plugins through the service; admins can look at them. */
export async function reservationRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const reservations = container.resolve(Reservations);

  r.get('/inventory/reservations', {
    config: { auth: ADMIN, permission: 'inventory.read' },
    schema: {
      tags: ['Inventory'],
      summary: 'Stock held for orders, newest first',
      querystring: ReservationListQuery,
      response: { 200: listOf(ReservationOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => {
    const page = await reservations.list(req.query, filtersOf(req.query) as ReservationFilter);
    return { data: page.items.map(reservationOut), meta: { pagination: page.pagination } };
  });
}
