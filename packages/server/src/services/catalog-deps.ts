import type { Engine } from '@studio/engine';
import type { Db } from '../store/db';
import type { UnitOfWork } from '../store/unit-of-work';
import type { AccessService } from './access';
import type { AuditService } from './audit';
import type { DatasetService } from './datasets';
import type { JobService } from './jobs/service';
import type { RecordService } from './records';

/**
 * What the datasets' background work (hex tiles, refreshes) is built with: the catalog's records, datasets, jobs
 * and audit, access checks and the engine, each named, instead of the whole container (services/index.ts), so
 * a service depends on what it uses and the container's module imports none of them back.
 */
export interface CatalogDeps {
  db: Db;
  units: UnitOfWork;
  access: AccessService;
  audit: AuditService;
  records: RecordService;
  datasets: DatasetService;
  jobs: JobService;
  engine: Engine;
}
