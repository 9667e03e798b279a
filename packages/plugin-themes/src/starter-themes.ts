import type { CatalogThemeSeed } from './services/catalog.js';

/** Two themes a new platform can offer at once: one free, one paid. Their ids are fixed, so seeding is idempotent. */
export const STARTER_THEMES: readonly CatalogThemeSeed[] = [
  {
    id: '5f0c6a52-3b1e-4d0a-9f4e-1a2b3c4d5e01',
    name: 'andes',
    display_name: 'Andes',
    description: 'A clean, fast storefront: a hero banner, featured collections and a product grid.',
    price: 0,
    currency: 'USD',
    author: 'Qhatu',
    tags: ['minimal', 'free'],
    settings: {
      section_order: ['header', 'hero', 'featured', 'footer'],
      sections: {
        header: { type: 'header', settings: { logo_width: 120, sticky: true } },
        hero: { type: 'hero', settings: { heading: 'Welcome', subheading: 'New arrivals every week', button_label: 'Shop now' } },
        featured: { type: 'featured-collection', settings: { title: 'Featured', products_to_show: 8 } },
        footer: { type: 'footer', settings: { show_payment_icons: true } },
      },
    },
  },
  {
    id: '5f0c6a52-3b1e-4d0a-9f4e-1a2b3c4d5e02',
    name: 'inti',
    display_name: 'Inti',
    description: 'A bold editorial theme with a slideshow, shoppable lookbooks and testimonials.',
    price: 4900,
    currency: 'USD',
    author: 'Qhatu',
    tags: ['editorial', 'fashion'],
    settings: {
      section_order: ['header', 'slideshow', 'lookbook', 'testimonials', 'footer'],
      sections: {
        header: { type: 'header', settings: { logo_position: 'center', sticky: true } },
        slideshow: {
          type: 'slideshow',
          settings: { autoplay: true, speed_seconds: 5 },
          blocks: { first: { type: 'slide', settings: { heading: 'Summer collection' } }, second: { type: 'slide', settings: { heading: 'Alpaca essentials' } } },
          block_order: ['first', 'second'],
        },
        lookbook: { type: 'lookbook', settings: { columns: 3 } },
        testimonials: { type: 'testimonials', settings: { title: 'What our customers say' } },
        footer: { type: 'footer', settings: { show_payment_icons: true, newsletter: true } },
      },
    },
  },
];
