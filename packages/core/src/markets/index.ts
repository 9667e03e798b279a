export { askedMarket, chooseMarket, CURRENCY_PARAMETER, findMarket, headerMarket, MARKET_HANDLE, marketOf, type MarketRow, type StoredMarket, MARKET_HEADER, MARKET_PARAMETER, MarketQuery, marketNotFound, moneyKey, requestMarket, type Market, type MarketChoice } from './market.js';
export { convertAmount, convertAt, convertSql, currencyDecimals, currencyNotListed, currencyOf, defaultCurrencyOf, normalizeRate, storeMoneyOf, type Rounding, type StoreCurrency, type StoreMoney } from './money.js';
export { Currencies, MAX_CURRENCIES, moneyFor, storeMoney, type CurrencyInput } from './store-currencies.js';
export { MAX_MARKETS, Markets, type MarketInput } from './store-markets.js';
