import type { ShippingRate } from '../entities/rate.js';
import type { Shipment, ShippingAddress } from '../entities/shipment.js';
import type { RateQuote } from '../services/quotes.js';

export function rateOut(r: ShippingRate | RateQuote) {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    carrier: r.carrier,
    service_name: r.serviceName,
    service_code: r.serviceCode,
    currency: r.currency,
    amount: r.amount,
    estimated_days: r.estimatedDays,
    weight_g: r.weightG,
    origin_country: r.originCountry,
    destination_country: r.destinationCountry,
    source: 'source' in r ? r.source : ('table' as const),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

function addressOut(a: ShippingAddress) {
  return {
    name: a.name,
    line1: a.line1,
    line2: a.line2 ?? null,
    city: a.city,
    state: a.state ?? null,
    postal_code: a.postal_code,
    country: a.country,
    phone: a.phone ?? null,
  };
}

export function shipmentOut(s: Shipment) {
  return {
    id: s.id,
    tenant_id: s.tenantId,
    order_id: s.orderId,
    fulfillment_id: s.fulfillmentId ?? null,
    carrier: s.carrier,
    service_code: s.serviceCode,
    status: s.status,
    origin_address: addressOut(s.originAddress),
    destination_address: addressOut(s.destinationAddress),
    weight_g: s.weightG,
    dimensions: { length_cm: s.lengthCm, width_cm: s.widthCm, height_cm: s.heightCm },
    tracking_number: s.trackingNumber ?? null,
    label_url: s.labelUrl ?? null,
    events: s.events,
    failure_reason: s.failureReason ?? null,
    delivered_at: s.deliveredAt ? s.deliveredAt.toISOString() : null,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
