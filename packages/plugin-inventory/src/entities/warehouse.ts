import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const LOCATION_TYPES = ['warehouse', 'store', 'popup', 'pickup_point', 'dropship'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `HH:MM-HH:MM`, or `closed`. */
export type OperatingHours = Partial<Record<Weekday, string>>;

export interface WarehouseAddress {
  line1: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
}

export const Warehouse = defineEntity({
  name: 'Warehouse',
  tableName: 'inventory_warehouse',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    /** Upper case, unique in the store. */
    code: p.string(),
    locationType: p.string().$type<LocationType>(),
    address: p.json<WarehouseAddress>().nullable(),
    phone: p.string().nullable(),
    email: p.string().nullable(),
    latitude: p.float().nullable(),
    longitude: p.float().nullable(),
    operatingHours: p.json<OperatingHours>(),
    fulfillsOnlineOrders: p.boolean(),
    allowsPickup: p.boolean(),
    isActive: p.boolean(),
    isDefault: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Warehouse = InferEntity<typeof Warehouse>;
