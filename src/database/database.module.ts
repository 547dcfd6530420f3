import { Global, Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { databaseConfig } from '../config';
import { buildDataSourceOptions } from './data-source-options';
import { installRequestTransactions } from './request-transaction';
import { Transactions } from './transactions';

/** The data source (TypeORM, Postgres) and Transactions, for every module. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [databaseConfig.KEY],
      useFactory: (db: ConfigType<typeof databaseConfig>) => ({
        ...buildDataSourceOptions(db.url, db.poolSize, db.timeouts),
        autoLoadEntities: false,
      }),
    }),
  ],
  providers: [
    {
      provide: 'REQUEST_TRANSACTIONS',
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => installRequestTransactions(dataSource),
    },
    Transactions,
  ],
  exports: [Transactions],
})
export class DatabaseModule {}
