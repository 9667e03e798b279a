import { LockMode } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { AppError, Database, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Deal } from '../entities/deal.js';
import type { Stage } from '../entities/pipeline.js';
import { Task } from '../entities/task.js';
import { dealMachine } from '../machines/deal.js';
import type { DealInput, DealPatch, MoveInput } from '../schemas/deal.js';
import { dealEvent } from './events.js';
import { Pipelines } from './pipelines.js';
import { readDealPage, type DealFilter } from './reads.js';
import { assignFields, CrmReferences } from './references.js';

const notFound = () => AppError.notFound('Deal', 'DEAL_NOT_FOUND');

export interface NewDeal {
  title: string;
  amount: number;
  currency?: string;
  pipelineId?: string;
  stageId?: string;
  contactId: string | null;
  accountId: string | null;
  ownerId: string | null;
  probability?: number;
  expectedClose: Date | null;
  tags: string[];
  metadata: Record<string, unknown>;
}

/**
 * Deals: open ones move between the stages of their pipeline; `won` and `lost` close them
 * (probability 100 and 0, `closed_at` set); `reopen` opens a closed one again in its stage.
 */
@injectable()
export class Deals {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CrmReferences) private readonly refs: CrmReferences,
    @inject(Pipelines) private readonly pipelines: Pipelines,
  ) {}

  list(page: PageRequest, filter: DealFilter): Promise<Page<Deal>> {
    return this.db.read((sql) => readDealPage(sql, page, filter));
  }

  async get(id: string): Promise<Deal> {
    return this.db.tenant((tx) => this.find(tx, id));
  }

  async create(input: DealInput): Promise<Deal> {
    const ownerId = await this.refs.staffMember(input.owner_id, 'owner_id', true);
    return this.db.tenant(async (tx) => {
      await this.refs.contact(tx, input.contact_id);
      await this.refs.account(tx, input.account_id);
      const deal = await this.insert(tx, {
        title: input.title,
        amount: input.amount,
        currency: input.currency,
        pipelineId: input.pipeline_id,
        stageId: input.stage_id,
        contactId: input.contact_id ?? null,
        accountId: input.account_id ?? null,
        ownerId: ownerId ?? null,
        probability: input.probability,
        expectedClose: input.expected_close ? new Date(input.expected_close) : null,
        tags: input.tags ?? [],
        metadata: input.metadata ?? {},
      });
      await tx.em.flush();
      return deal;
    });
  }

  /** A deal in the given pipeline (the stage's, else the default one) and stage (its first when absent). */
  async insert(tx: Tx, input: NewDeal, field = 'pipeline_id'): Promise<Deal> {
    // A stage alone names its pipeline.
    const pipelineId = input.pipelineId ?? (input.stageId ? (await this.pipelines.referencedStage(tx, input.stageId)).pipelineId : undefined);
    const { pipeline, stages } = pipelineId ? await this.pipelines.referenced(tx, pipelineId, field) : await this.pipelines.ensureDefault(tx);
    const stage = input.stageId ? await this.pipelines.stageIn(tx, pipeline.id, input.stageId) : stages[0];
    const now = tx.now();
    const deal = tx.em.create(Deal, {
      id: randomUUID(),
      tenantId: tx.tenantId,
      pipelineId: pipeline.id,
      stageId: stage.id,
      contactId: input.contactId,
      accountId: input.accountId,
      ownerId: input.ownerId,
      title: input.title,
      amount: input.amount,
      currency: input.currency ?? (await this.storeCurrency(tx)),
      status: 'open',
      probability: input.probability ?? stage.probability,
      expectedClose: input.expectedClose,
      lostReason: null,
      tags: input.tags,
      metadata: input.metadata,
      closedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    tx.publish('crm.deal.created', dealEvent(deal));
    return deal;
  }

  /**
   * Changes the fields sent. A new `stage_id` must be a stage of the deal's pipeline (or of the
   * new `pipeline_id`, which needs one); the stage's probability comes with it unless one is sent.
   */
  async update(id: string, patch: DealPatch): Promise<Deal> {
    const ownerId = await this.refs.staffMember(patch.owner_id, 'owner_id', false);
    return this.db.tenant(async (tx) => {
      const deal = await this.find(tx, id, true);
      await this.refs.contact(tx, patch.contact_id);
      await this.refs.account(tx, patch.account_id);
      const stageBefore = deal.stageId;
      if (patch.pipeline_id !== undefined && patch.pipeline_id !== deal.pipelineId) {
        if (!patch.stage_id) throw AppError.validation('A new pipeline_id needs a stage_id of that pipeline', [{ path: 'body.stage_id', message: 'is required with pipeline_id' }]);
        await this.pipelines.referenced(tx, patch.pipeline_id);
      }
      const pipelineId = patch.pipeline_id ?? deal.pipelineId;
      let stage: Stage | undefined;
      if (patch.stage_id !== undefined && (patch.stage_id !== deal.stageId || pipelineId !== deal.pipelineId)) {
        stage = await this.pipelines.stageIn(tx, pipelineId, patch.stage_id);
      }
      const { stage_id: _s, pipeline_id: _p, ...rest } = patch;
      assignFields(deal, { ...rest, owner_id: ownerId }, ['expected_close']);
      if (stage) {
        deal.pipelineId = pipelineId;
        deal.stageId = stage.id;
        if (patch.probability === undefined && deal.status === 'open') deal.probability = stage.probability;
      }
      deal.updatedAt = tx.now();
      await tx.em.flush();
      tx.publish('crm.deal.updated', dealEvent(deal));
      if (deal.stageId !== stageBefore) tx.publish('crm.deal.stage_changed', { ...dealEvent(deal), previous_stage_id: stageBefore });
      return deal;
    });
  }

  /** Moves an open deal to another stage of its pipeline; probability becomes the stage's unless sent. */
  async move(id: string, input: MoveInput): Promise<Deal> {
    return this.db.tenant(async (tx) => {
      const deal = await this.find(tx, id, true);
      await dealMachine.apply(tx, deal, 'move');
      const stage = await this.pipelines.stageIn(tx, deal.pipelineId, input.stage_id);
      const previous = deal.stageId;
      deal.stageId = stage.id;
      deal.probability = input.probability ?? stage.probability;
      deal.updatedAt = tx.now();
      await tx.em.flush();
      tx.publish('crm.deal.stage_changed', { ...dealEvent(deal), previous_stage_id: previous });
      return deal;
    });
  }

  async won(id: string): Promise<Deal> {
    return this.close(id, 'win', null);
  }

  async lost(id: string, reason: string): Promise<Deal> {
    return this.close(id, 'lose', reason);
  }

  /** A won or lost deal is open again: in its stage, with the stage's probability, no reason or close date. */
  async reopen(id: string): Promise<Deal> {
    return this.db.tenant(async (tx) => {
      const deal = await this.find(tx, id, true);
      await dealMachine.apply(tx, deal, 'reopen');
      const stage = await this.pipelines.stageIn(tx, deal.pipelineId, deal.stageId);
      deal.probability = stage.probability;
      deal.lostReason = null;
      deal.closedAt = null;
      deal.updatedAt = tx.now();
      await tx.em.flush();
      tx.publish('crm.deal.reopened', dealEvent(deal));
      return deal;
    });
  }

  /** A deal goes with its tasks. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      await this.find(tx, id, true);
      await tx.em.nativeDelete(Task, { entityKind: 'deal', entityId: id });
      await tx.em.nativeDelete(Deal, { id });
      tx.publish('crm.deal.deleted', { id, deleted_at: tx.now().toISOString() });
    });
  }

  private async close(id: string, action: 'win' | 'lose', reason: string | null): Promise<Deal> {
    return this.db.tenant(async (tx) => {
      const deal = await this.find(tx, id, true);
      await dealMachine.apply(tx, deal, action);
      const now = tx.now();
      deal.probability = action === 'win' ? 100 : 0;
      deal.lostReason = reason;
      deal.closedAt = now;
      deal.updatedAt = now;
      await tx.em.flush();
      tx.publish(action === 'win' ? 'crm.deal.won' : 'crm.deal.lost', dealEvent(deal));
      return deal;
    });
  }

  private async find(tx: Tx, id: string, lock = false): Promise<Deal> {
    const deal = await tx.em.findOne(Deal, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!deal) throw notFound();
    return deal;
  }

  private async storeCurrency(tx: Tx): Promise<string> {
    const [row] = await tx.em.execute<{ currency: string }[]>(`select currency from core_tenant where id = ?`, [tx.tenantId]);
    return row?.currency?.trim() ?? 'USD';
  }
}
