import { adminUiPlugin } from '@qhatu/admin';
import { defineProject } from '@qhatu/core';
import abandonedCarts from '@qhatu/plugin-abandoned-carts';
import b2b from '@qhatu/plugin-b2b';
import blog from '@qhatu/plugin-blog';
import catalog from '@qhatu/plugin-catalog';
import checkout from '@qhatu/plugin-checkout';
import crm from '@qhatu/plugin-crm';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import draftOrders from '@qhatu/plugin-draft-orders';
import inventory from '@qhatu/plugin-inventory';
import marketplace from '@qhatu/plugin-marketplace';
import media from '@qhatu/plugin-media';
import culqi from '@qhatu/plugin-gateway-culqi';
import izipay from '@qhatu/plugin-gateway-izipay';
import mercadopago from '@qhatu/plugin-gateway-mercadopago';
import niubiz from '@qhatu/plugin-gateway-niubiz';
import offline from '@qhatu/plugin-gateway-offline';
import payme from '@qhatu/plugin-gateway-payme';
import paypal from '@qhatu/plugin-gateway-paypal';
import stripe from '@qhatu/plugin-gateway-stripe';
import orderEdits from '@qhatu/plugin-order-edits';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import returns from '@qhatu/plugin-returns';
import reviews from '@qhatu/plugin-reviews';
import shipping from '@qhatu/plugin-shipping';
import storeCredit from '@qhatu/plugin-store-credit';
import taxes from '@qhatu/plugin-taxes';
import { STARTER_THEMES, themesPlugin } from '@qhatu/plugin-themes';
import webhooks from '@qhatu/plugin-webhooks';

/** The full store: every plugin of the platform; the theme store starts with a free and a paid theme. */
export default defineProject({
  plugins: [media, catalog, customers, inventory, discounts, orders, taxes, shipping, checkout, abandonedCarts, payments, stripe, culqi, mercadopago, niubiz, izipay, payme, paypal, offline, storeCredit, webhooks, blog, themesPlugin({ seed: STARTER_THEMES }), reviews, crm, b2b, marketplace, draftOrders, orderEdits, returns, adminUiPlugin()],
});
