import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, isAppError, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { Fulfillments, OrderReads, type OrderView } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { Shipment, type ShipmentStatus, type ShippingAddress, type TrackingEvent } from '../entities/shipment.js';
import { shipmentEvent, shipmentMachine, TRACKING_MOVES } from '../machines/shipment.js';
import type { LabelInput, ShipmentCreate, TrackingInput } from '../schemas/shipment.js';

export interface ShipmentFilter {
  order_id?: string;
  status?: ShipmentStatus;
  tracking_number?: string;
}

/** A shipment keeps at most this many tracking events. */
export const MAX_TRACKING_EVENTS = 500;
/** A carrier's clock may run ahead a little; an event further in the future is refused. */
const FUTURE_SKEW_MS = 60 * 60 * 1000;
/** Orders in these states ship nothing. */
const UNSHIPPABLE = ['cancelled', 'refunded'];

export const shipmentNotFound = () => AppError.notFound('Shipment', 'SHIPMENT_NOT_FOUND');

/** 409 INVALID_STATE_TRANSITION: a delivered shipment is final. */
function assertOpen(shipment: Shipment, action: string): void {
  if (shipment.status !== 'delivered') return;
  throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot ${action} a shipment that is delivered`, [
    { message: 'delivered is final', from: 'delivered', action },
  ]);
}

/** 422 SHIPMENT_FULFILLMENT_AMBIGUOUS: the order has several open fulfilments and the shipment names none. */
function ambiguous(open: string[]): AppError {
  return AppError.unprocessable(
    'SHIPMENT_FULFILLMENT_AMBIGUOUS',
    'The order has several fulfillments in transit and this shipment names none: deliver it with POST /shipping/shipments/:id/delivered {"fulfillment_id"}',
    [{ path: 'body.fulfillment_id', message: 'name the fulfillment this parcel carries', open_fulfillment_ids: open }],
  );
}

/** Shipments of the store's orders: the only place that writes them. */
@injectable()
export class Shipments {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(OrderReads) private readonly orders: OrderReads,
    @inject(Fulfillments) private readonly fulfillments: Fulfillments,
  ) {}

  /** A parcel for an order of this store (422 when the order or the fulfilment is not), `pending`. */
  async create(input: ShipmentCreate): Promise<Shipment> {
    return this.db.tenant(async (tx) => {
      const { order, fulfillments } = await this.orderOf(input.order_id);
      if (UNSHIPPABLE.includes(order.status)) {
        throw AppError.unprocessable('ORDER_NOT_SHIPPABLE', `The order is ${order.status}: it cannot be shipped`, [
          { path: 'body.order_id', message: `the order is ${order.status}` },
        ]);
      }
      if (input.fulfillment_id && !fulfillments.some((f) => f.id === input.fulfillment_id)) {
        throw AppError.unprocessable('FULFILLMENT_NOT_FOUND', 'The fulfillment is not one of this order', [
          { path: 'body.fulfillment_id', message: 'is not a fulfillment of this order' },
        ]);
      }
      const at = tx.now();
      const shipment = tx.em.create(Shipment, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        orderId: order.id,
        fulfillmentId: input.fulfillment_id ?? null,
        carrier: input.carrier,
        serviceCode: input.service_code,
        status: 'pending',
        originAddress: input.origin_address as ShippingAddress,
        destinationAddress: input.destination_address as ShippingAddress,
        weightG: input.weight_g,
        lengthCm: input.length_cm,
        widthCm: input.width_cm,
        heightCm: input.height_cm,
        trackingNumber: null,
        labelUrl: null,
        events: [],
        failureReason: null,
        deliveredAt: null,
        createdAt: at,
        updatedAt: at,
      });
      tx.publish('shipping.shipment.created', shipmentEvent(shipment));
      await tx.em.flush();
      return shipment;
    });
  }

  async get(id: string): Promise<Shipment> {
    return this.db.tenant(async ({ em }) => {
      const shipment = await em.findOne(Shipment, { id });
      if (!shipment) throw shipmentNotFound();
      return shipment;
    });
  }

  async list(page: PageRequest, filter: ShipmentFilter): Promise<Page<Shipment>> {
    return this.db.tenant(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.order_id) where.orderId = filter.order_id;
      if (filter.status) where.status = filter.status;
      if (filter.tracking_number) where.trackingNumber = filter.tracking_number;
      return paginate(em, Shipment, where, page);
    });
  }

  /** The carrier's label: tracking number and label address stored, `label_generated`. */
  async label(id: string, input: LabelInput): Promise<Shipment> {
    return this.change(id, async (tx, shipment) => {
      shipment.trackingNumber = input.tracking_number;
      shipment.labelUrl = input.label_url;
      shipment.failureReason = null;
      await shipmentMachine.apply(tx, shipment, 'label');
    });
  }

  /**
   * A tracking event, kept in timestamp order (a late one goes where it belongs). When it is the
   * newest, the shipment follows it (`TRACKING_MOVES`). The same event sent again changes nothing.
   */
  async track(id: string, input: TrackingInput): Promise<Shipment> {
    return this.change(id, async (tx, shipment) => {
      assertOpen(shipment, 'track');
      const at = new Date(input.timestamp);
      if (at.getTime() > tx.now().getTime() + FUTURE_SKEW_MS) {
        throw AppError.unprocessable('TRACKING_EVENT_IN_FUTURE', 'A tracking event cannot be dated more than an hour ahead', [
          { path: 'body.timestamp', message: 'is in the future' },
        ]);
      }
      const event: TrackingEvent = { status: input.status, location: input.location, description: input.description, timestamp: at.toISOString() };
      const same = (e: TrackingEvent) => e.status === event.status && e.timestamp === event.timestamp && e.location === event.location && e.description === event.description;
      if (shipment.events.some(same)) return false;
      if (shipment.events.length >= MAX_TRACKING_EVENTS) {
        throw AppError.unprocessable('TRACKING_HISTORY_FULL', `A shipment keeps at most ${MAX_TRACKING_EVENTS} tracking events`);
      }
      const after = shipment.events.findIndex((e) => Date.parse(e.timestamp) > at.getTime());
      const events = [...shipment.events];
      events.splice(after === -1 ? events.length : after, 0, event);
      shipment.events = events;
      const move = after === -1 ? TRACKING_MOVES[event.status] : undefined;
      if (move && move.to !== shipment.status) {
        if (move.action === 'deliver') await this.deliverLocked(tx, shipment);
        else {
          shipment.failureReason = move.action === 'fail' ? (event.description ?? `The carrier reported ${event.status.replace(/_/g, ' ')}`) : null;
          await shipmentMachine.apply(tx, shipment, move.action);
        }
      }
      tx.publish('shipping.shipment.tracking_updated', { ...shipmentEvent(shipment), event });
    });
  }

  /**
   * Delivered (final); the order's matching fulfilment is marked delivered with it. `fulfillmentId`
   * names it when the shipment does not (422 FULFILLMENT_MISMATCH when it names another).
   */
  async deliver(id: string, fulfillmentId?: string): Promise<Shipment> {
    return this.change(id, async (tx, shipment) => {
      if (fulfillmentId && shipment.fulfillmentId && fulfillmentId !== shipment.fulfillmentId) {
        throw AppError.unprocessable('FULFILLMENT_MISMATCH', 'This shipment carries another fulfillment of the order', [
          { path: 'body.fulfillment_id', message: 'is not the fulfillment this shipment carries', fulfillment_id: shipment.fulfillmentId },
        ]);
      }
      await this.deliverLocked(tx, shipment, fulfillmentId);
    });
  }

  async fail(id: string, reason: string): Promise<Shipment> {
    return this.change(id, async (tx, shipment) => {
      shipment.failureReason = reason;
      await shipmentMachine.apply(tx, shipment, 'fail');
    });
  }

  /** Locks the shipment, lets `work` change it (false: nothing changed), and saves it. */
  private async change(id: string, work: (tx: Tx, shipment: Shipment) => Promise<void | false>): Promise<Shipment> {
    return this.db.tenant(async (tx) => {
      const shipment = await tx.em.findOne(Shipment, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!shipment) throw shipmentNotFound();
      const previous = shipment.updatedAt;
      // Set first: the events a move publishes carry it.
      shipment.updatedAt = tx.now();
      if ((await work(tx, shipment)) === false) shipment.updatedAt = previous;
      await tx.em.flush();
      return shipment;
    });
  }

  private async deliverLocked(tx: Tx, shipment: Shipment, fulfillmentId?: string): Promise<void> {
    assertOpen(shipment, 'deliver');
    shipment.deliveredAt = tx.now();
    shipment.failureReason = null;
    await this.deliverFulfilment(shipment, fulfillmentId);
    await shipmentMachine.apply(tx, shipment, 'deliver');
  }

  /**
   * The order's fulfilment this parcel carries: the one named (on create or on delivery), else the
   * one with the same tracking number, else the order's only undelivered one, else, when none is
   * open, a fulfilment of everything the order has left to ship, made now. It is marked delivered
   * (through the orders plugin, in this transaction), so the order is fulfilled once every item
   * shipped and every shipment is delivered. Several open and none named: 422, nothing changes.
   */
  private async deliverFulfilment(shipment: Shipment, fulfillmentId?: string): Promise<void> {
    const { order, lines, fulfillments } = await this.orders.get(shipment.orderId);
    const named = fulfillmentId ?? shipment.fulfillmentId;
    if (named && !fulfillments.some((f) => f.id === named)) {
      throw AppError.unprocessable('FULFILLMENT_NOT_FOUND', 'The fulfillment is not one of this order', [{ path: 'body.fulfillment_id', message: 'is not a fulfillment of this order' }]);
    }
    const open = fulfillments.filter((f) => f.status !== 'delivered');
    let match =
      fulfillments.find((f) => f.id === named) ??
      (shipment.trackingNumber ? fulfillments.find((f) => f.trackingNumber === shipment.trackingNumber) : undefined) ??
      (open.length === 1 ? open[0] : undefined);
    if (!match && open.length > 1) throw ambiguous(open.map((f) => f.id));
    if (!match && lines.some((l) => l.fulfilledQuantity < l.quantity)) {
      const details = { carrier: shipment.carrier, trackingNumber: shipment.trackingNumber };
      match = (await this.fulfillments.create(order.id, details)).fulfillment;
    }
    // Everything shipped and delivered already: nothing is left for this parcel to deliver.
    if (!match) return;
    shipment.fulfillmentId = match.id;
    if (match.status === 'delivered') return;
    try {
      await this.fulfillments.markDelivered(match.id);
    } catch (error) {
      // Delivered through the orders API a moment ago: linked all the same.
      if (!(isAppError(error) && error.code === 'INVALID_STATE_TRANSITION')) throw error;
    }
  }

  /** The order, 422 ORDER_NOT_FOUND when this store has no such order (a reference in a body). */
  private async orderOf(orderId: string): Promise<OrderView> {
    try {
      return await this.orders.get(orderId);
    } catch (error) {
      if (isAppError(error) && error.status === 404) {
        throw AppError.unprocessable('ORDER_NOT_FOUND', 'The order does not exist in this store', [{ path: 'body.order_id', message: 'no such order' }]);
      }
      throw error;
    }
  }
}
