export type { FieldPresenter, PresenterDefinition } from './definePresenter.js';
export { definePresenter } from './definePresenter.js';
export type { ObjectFieldOptions } from './field.js';
export { field } from './field.js';
export type {
  AnyField,
  Field,
  FieldContext,
  FieldMap,
  FieldMeta,
  FieldShape,
  InputOf,
  OutputOf,
  PresentedOf,
  RevisionOf,
  ValueOf,
  Versioning,
} from './fieldTypes.js';
export type { Money, MoneyInputOptions, MoneyInputValue } from './money.js';
export { currencyExponent, moneyOf, moneyToDecimal, parseMoney } from './money.js';
export { moneyInput } from './moneyInput.js';
export type { Rounding, RoundingOptions } from './moneyMath.js';
export { allocateMoney, multiplyMoney, percentOf, sumMoney } from './moneyMath.js';
export type { MoneyFormatOptions, PresentedMoney } from './presentMoney.js';
export { formatMoney, moneyField, PRESENTED_MONEY_SCHEMA, presentMoney } from './presentMoney.js';
export type { InstantLike, PresentTimeOptions } from './presentTime.js';
export { instantField, presentInstant } from './presentTime.js';
export type { TimeInputOptions, TimeInputValue } from './timeInput.js';
export { isOffsetOnly, parseTime, timeInput, withDefaultZone } from './timeInput.js';
export type { UntrustedText, UntrustedTextOptions } from './untrustedText.js';
export {
  DEFAULT_UNTRUSTED_MAX_LENGTH,
  sanitizeText,
  UNTRUSTED_TEXT_NOTE,
  untrustedText,
  untrustedTextField,
  untrustedTextSchema,
} from './untrustedText.js';
