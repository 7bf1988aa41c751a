import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { RawSqlResultsToEntityTransformer } from 'typeorm/query-builder/transformer/RawSqlResultsToEntityTransformer';

/**
 * A SELECT that TypeORM's query builder writes once and that then runs with new parameter values.
 * The builder writes its SQL afresh on every run, and for the few statements every login runs that
 * writing was a large share of a login's main thread (docs/benchmarks.md). The
 * rows become entities exactly as the builder's getMany makes them: the same aliases, column types
 * and hydration. For plain selects only: no relations to load, no skip/take across joins, no entity
 * listeners, no result cache (the builder would do those; this does not).
 */
export class PreparedSelect<Entity extends ObjectLiteral> {
  private readonly sql: string;
  /** The values the builder was given itself; each run's are added to them. */
  private readonly fixed: ObjectLiteral;

  /** `builder` with named parameters (`:id`, `:...ids`) whose values each run gives. */
  constructor(private readonly builder: SelectQueryBuilder<Entity>) {
    this.sql = builder.getQuery();
    this.fixed = builder.getParameters();
  }

  async many(parameters: ObjectLiteral): Promise<Entity[]> {
    const { dataSource, expressionMap } = this.builder;
    const [sql, values] = dataSource.driver.escapeQueryWithParameters(this.sql, { ...this.fixed, ...parameters });
    const raw = (await dataSource.query(sql, values)) as ObjectLiteral[];
    if (!raw.length) return [];
    return new RawSqlResultsToEntityTransformer(expressionMap, dataSource.driver, []).transform(
      raw,
      expressionMap.mainAlias!,
    ) as Entity[];
  }

  async one(parameters: ObjectLiteral): Promise<Entity | null> {
    return (await this.many(parameters))[0] ?? null;
  }
}
