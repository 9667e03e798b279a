import { Navigate, Route, Routes } from 'react-router';
import { PriceListDetail, PriceLists } from './price-lists';
import { NewQuote, QuoteDetail, Quotes } from './quotes';

/** Wholesale: price lists and their rules, quotes from draft to order (the B2B plugin). */
export default function Wholesale() {
  return (
    <Routes>
      <Route index element={<Navigate to="/wholesale/price-lists" replace />} />
      <Route path="price-lists" element={<PriceLists />} />
      <Route path="price-lists/:id" element={<PriceListDetail />} />
      <Route path="quotes" element={<Quotes />} />
      <Route path="quotes/new" element={<NewQuote />} />
      <Route path="quotes/:id" element={<QuoteDetail />} />
    </Routes>
  );
}
