import { ValidateIf } from 'class-validator';

/** Optional means absent: unlike @IsOptional, an explicit null is still validated (and refused). */
export const Optional = () => ValidateIf((_object, value) => value !== undefined);
