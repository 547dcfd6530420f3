import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { readDatabaseEnv } from '../config/database.config';
import { buildDataSourceOptions } from './data-source-options';

/** Used by the TypeORM CLI (`npm run migration:generate`). */
export default new DataSource(buildDataSourceOptions(readDatabaseEnv().url));
