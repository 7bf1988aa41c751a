import type { paths } from './schema';

/** The operations that take a POST: all of the service's API but a few GETs (docs/api.md#requests). */
export type PostPath = {
  [P in keyof paths]: paths[P] extends { post: object } ? P : never;
}[keyof paths];

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body an operation takes, as the service's OpenAPI document describes it. */
export type BodyOf<P extends PostPath> = paths[P]['post'] extends { requestBody?: infer R }
  ? JsonOf<NonNullable<R>>
  : never;

/** The `data` of an operation's successful envelope, as the service's OpenAPI document describes it. */
export type DataOf<P extends PostPath> = paths[P]['post'] extends { responses: { 200: infer R } }
  ? JsonOf<R> extends { data: infer D }
    ? D
    : never
  : never;

/** Every answer of the service, success or not (docs/api.md#the-envelope). */
export interface Envelope<T = unknown> {
  success: boolean;
  code: string;
  message: string;
  data: T;
}
