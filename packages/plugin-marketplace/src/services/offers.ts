import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { AppError, Database, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { Product } from '@qhatu/plugin-catalog';
import { inject, injectable } from 'tsyringe';
import { Offer } from '../entities/offer.js';
import type { OfferCreate, OfferUpdate } from '../schemas/offer.js';
import { offerData, publish } from './events.js';
import { pctToBps } from './money.js';
import { findVendor, lockVendor } from './vendors.js';

export const offerNotFound = () => AppError.notFound('Vendor product', 'VENDOR_PRODUCT_NOT_FOUND');

const alreadyLinked = () =>
  new AppError(409, 'PRODUCT_ALREADY_LINKED', 'This product is already linked to this vendor', [{ path: 'body.catalog_product_id', message: 'already linked to this vendor' }]);

/** Vendors' offers of catalog products (vendor products): the only writer of them. */
@injectable()
export class Offers {
  constructor(@inject(Database) private readonly db: Database) {}

  /**
   * Links a catalog product to an active vendor (404 VENDOR_NOT_FOUND, 422 VENDOR_NOT_ACTIVE, 422
   * PRODUCT_NOT_FOUND, 409 PRODUCT_ALREADY_LINKED for the same pair twice).
   */
  async link(input: OfferCreate): Promise<Offer> {
    return this.db.tenant(async (tx) => {
      // Locked: a suspension waits for the link, or the link sees the suspension.
      const vendor = await lockVendor(tx, input.vendor_id);
      if (vendor.status !== 'active') {
        throw AppError.unprocessable('VENDOR_NOT_ACTIVE', `This vendor is ${vendor.status}; only an active vendor's products can be linked`, [{ path: 'body.vendor_id', message: `is ${vendor.status}` }]);
      }
      if (!(await tx.em.count(Product, { id: input.catalog_product_id }))) {
        throw AppError.unprocessable('PRODUCT_NOT_FOUND', 'This product is not in the catalog', [{ path: 'body.catalog_product_id', message: 'is not a product of this store' }]);
      }
      if (await tx.em.count(Offer, { vendorId: vendor.id, productId: input.catalog_product_id, unlinkedAt: null })) throw alreadyLinked();
      const offer = tx.em.create(Offer, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        vendorId: vendor.id,
        productId: input.catalog_product_id,
        priceOverride: input.price_override ?? null,
        stock: input.stock,
        reserved: 0,
        commissionBps: input.commission_pct == null ? null : pctToBps(input.commission_pct),
        unlinkedAt: null,
        createdAt: tx.now(),
        updatedAt: tx.now(),
      });
      publish(tx, 'marketplace.offer.linked', offerData(offer));
      try {
        await tx.em.flush();
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) throw alreadyLinked();
        throw error;
      }
      return offer;
    });
  }

  /** Unlinks: the offer stops selling at once; units held by orders stay theirs, paid orders are still paid out. */
  async unlink(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const offer = await lockOffer(tx, id);
      offer.unlinkedAt = tx.now();
      offer.updatedAt = tx.now();
      publish(tx, 'marketplace.offer.unlinked', offerData(offer));
    });
  }

  /** A vendor's linked offers, newest first (404 VENDOR_NOT_FOUND). */
  async ofVendor(vendorId: string, page: Pick<PageRequest, 'cursor' | 'limit'>): Promise<Page<Offer>> {
    return this.db.tenant(async (tx) => {
      await findVendor(tx, vendorId);
      return paginate(tx.em, Offer, { vendorId, unlinkedAt: null }, { ...page, sort: '-created_at' });
    });
  }

  /**
   * A vendor's change to its own offer: price and stock only. Another vendor's offer is as unknown
   * (404); stock below the units held by unpaid orders is 422 STOCK_BELOW_RESERVED.
   */
  async updateOwn(vendorId: string, id: string, patch: OfferUpdate): Promise<Offer> {
    return this.db.tenant(async (tx) => {
      const offer = await lockOffer(tx, id);
      if (offer.vendorId !== vendorId) throw offerNotFound();
      if (patch.stock !== undefined && patch.stock < offer.reserved) {
        throw AppError.unprocessable('STOCK_BELOW_RESERVED', `${offer.reserved} units are held by orders awaiting payment; stock cannot go below that`, [
          { path: 'body.stock', message: `must be at least ${offer.reserved}`, reserved: offer.reserved },
        ]);
      }
      const changed: string[] = [];
      if (patch.price_override !== undefined && patch.price_override !== offer.priceOverride) {
        offer.priceOverride = patch.price_override;
        changed.push('price_override');
      }
      if (patch.stock !== undefined && patch.stock !== offer.stock) {
        offer.stock = patch.stock;
        changed.push('stock');
      }
      if (changed.length === 0) return offer;
      offer.updatedAt = tx.now();
      publish(tx, 'marketplace.offer.updated', { ...offerData(offer), changed });
      return offer;
    });
  }
}

/** A linked offer of the store, locked, or 404 VENDOR_PRODUCT_NOT_FOUND. */
async function lockOffer(tx: Tx, id: string): Promise<Offer> {
  const offer = await tx.em.findOne(Offer, { id, unlinkedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!offer) throw offerNotFound();
  return offer;
}
