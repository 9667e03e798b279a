import type { StockAdjustment } from '../entities/stock-adjustment.js';
import type { StockReservation } from '../entities/stock-reservation.js';
import type { Warehouse } from '../entities/warehouse.js';
import type { VariantSettingView } from '../services/variant-settings.js';
import type { StockLevelView, WarehouseDetail } from '../services/warehouses.js';

export function warehouseOut(w: Warehouse) {
  return {
    id: w.id,
    name: w.name,
    code: w.code,
    location_type: w.locationType,
    address: w.address ?? null,
    phone: w.phone ?? null,
    email: w.email ?? null,
    latitude: w.latitude ?? null,
    longitude: w.longitude ?? null,
    operating_hours: w.operatingHours as Record<string, string>,
    fulfills_online_orders: w.fulfillsOnlineOrders,
    allows_pickup: w.allowsPickup,
    is_active: w.isActive,
    is_default: w.isDefault,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

export function stockLevelOut({ level, productId, sku }: StockLevelView) {
  return {
    warehouse_id: level.warehouseId,
    variant_id: level.variantId,
    product_id: productId,
    sku,
    on_hand: level.onHand,
    reserved: level.reserved,
    available: level.onHand - level.reserved,
    updated_at: level.updatedAt.toISOString(),
  };
}

export function warehouseDetailOut({ warehouse, stock }: WarehouseDetail) {
  return { ...warehouseOut(warehouse), stock: stock.map(stockLevelOut) };
}

export function adjustmentOut(a: StockAdjustment) {
  return {
    id: a.id,
    warehouse_id: a.warehouseId,
    variant_id: a.variantId,
    delta: a.delta,
    reason: a.reason,
    note: a.note ?? null,
    previous_quantity: a.previousQuantity,
    quantity: a.quantity,
    available: a.available,
    order_id: a.orderId ?? null,
    actor: { kind: a.actorKind, token_id: a.actorTokenId ?? null },
    created_at: a.createdAt.toISOString(),
  };
}

export function reservationOut(r: StockReservation) {
  return {
    id: r.id,
    order_id: r.orderId,
    warehouse_id: r.warehouseId,
    variant_id: r.variantId,
    quantity: r.quantity,
    consumed_quantity: r.consumedQuantity,
    released_quantity: r.releasedQuantity,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function variantSettingOut({ variantId, productId, sku, setting, stocked }: VariantSettingView) {
  return {
    variant_id: variantId,
    product_id: productId,
    sku,
    tracked: setting?.tracked ?? null,
    allow_backorder: setting?.allowBackorder ?? false,
    is_tracked: setting?.tracked ?? stocked,
    has_stock_record: stocked,
    created_at: setting?.createdAt.toISOString() ?? null,
    updated_at: setting?.updatedAt.toISOString() ?? null,
  };
}
