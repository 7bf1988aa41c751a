// One masking of personal data everywhere (docs/security.md#personal-data).
export { maskEmail, maskMobile } from '../common/pii-mask';
