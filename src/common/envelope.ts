export interface Envelope<T = unknown> {
  success: boolean;
  code: string;
  message: string;
  data: T | null;
}
