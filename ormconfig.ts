import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { loadConfig } from './src/config/app-config';
import { dataSourceOptions } from './src/database/data-source-options';

// For the TypeORM CLI (migration:run / migration:generate) with the same DATABASE_URL as the service.
export default new DataSource(dataSourceOptions(loadConfig().DATABASE_URL));
