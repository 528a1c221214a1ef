// Active ISO 4217 codes with their minor-unit exponent (as published by the
// ISO 4217 maintenance agency, 2025). Codes without a minor unit (XAU, XDR,
// XTS, …) are left out: they are not money a tool should compute with.
// Intl is not used for exponents: ICU disagrees with ISO 4217 for some
// currencies (for example IQD, where ICU formats 0 decimals and ISO has 3).
const BY_EXPONENT: readonly (readonly [number, string])[] = [
  [0, 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'],
  [3, 'BHD IQD JOD KWD LYD OMR TND'],
  [4, 'CLF UYW'],
  [
    2,
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF ' +
      'CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ ' +
      'GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD ' +
      'MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON ' +
      'RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS ' +
      'UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG',
  ],
];

const EXPONENTS: ReadonlyMap<string, number> = new Map(
  BY_EXPONENT.flatMap(([exponent, codes]) => codes.split(' ').map((code) => [code, exponent] as const)),
);

/** The minor-unit exponent of an ISO 4217 code (EUR 2, JPY 0, KWD 3), or `undefined` when unknown. */
export function exponentOf(currency: string): number | undefined {
  return EXPONENTS.get(currency);
}

/** Every known currency code, sorted. */
export function knownCurrencies(): string[] {
  return [...EXPONENTS.keys()].sort();
}
