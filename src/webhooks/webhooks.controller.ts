import { RequiredScope } from '../auth/scope.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { WorkspaceId } from '../auth/workspace.decorator';
import { IdParamDto } from '../common/id-param.dto';
import { ApiPageResponse, Page, PageQueryDto } from '../common/pagination/pagination';
import { EmptyBodyDto } from '../common/empty-body.dto';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto';
import { WebhookInputDto } from './dto/webhook-input.dto';
import { WebhookTestEventDto } from './dto/webhook-test.dto';
import { WebhookDto, WebhookWithSecretDto } from './dto/webhook.dto';
import { DeliveryParamDto, RedeliveryDto, ReplayInputDto, ReplayResultDto } from './dto/webhook-redelivery.dto';
import { WebhookRedeliveryService } from './webhook-redelivery.service';
import { WebhooksService } from './webhooks.service';
import { Idempotent } from '../common/decorators/idempotent.decorator';

const DELIVERY =
  'Events are POSTed as `{id, type, timestamp, workspaceId, data}` with the Standard Webhooks headers ' +
  '`webhook-id` (the event id, the same on every retry), `webhook-timestamp` and `webhook-signature` ' +
  '(`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`), verifiable with the `standardwebhooks` or `svix` libraries. ' +
  'A 2xx within 15 s is success; redirects are not followed. Failures are retried after about 5 s, 5 min, 30 min, ' +
  '2 h, 5 h, 10 h and 10 h (+/-20%, longer when the endpoint sends `Retry-After`). An endpoint answering 410 is ' +
  'disabled at once; one failing for 5 days is disabled too.';

@ApiTags('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly redelivery: WebhookRedeliveryService,
  ) {}

  @Post()
  @RequiredScope('webhooks:manage')
  @Idempotent()
  @ApiOperation({
    summary: 'Subscribe an endpoint to events',
    description: `Returns the signing secret, once. ${DELIVERY}`,
  })
  @ApiCreatedResponse({ type: WebhookWithSecretDto })
  @ApiErrors(400)
  async createWebhook(
    @WorkspaceId() workspaceId: string,
    @Body() body: WebhookInputDto,
  ): Promise<WebhookWithSecretDto> {
    const { webhook, secret } = await this.webhooks.create(workspaceId, body);
    return { ...WebhookDto.from(webhook), secret };
  }

  @Get()
  @RequiredScope('webhooks:manage')
  @ApiOperation({ summary: 'List webhook subscriptions (never their secrets)' })
  @ApiPageResponse(WebhookDto)
  @ApiErrors(400)
  async listWebhooks(@WorkspaceId() workspaceId: string, @Query() query: PageQueryDto): Promise<Page<WebhookDto>> {
    const page = await this.webhooks.list(workspaceId, query);
    return { data: page.data.map((w) => WebhookDto.from(w)), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @RequiredScope('webhooks:manage')
  @ApiOperation({ summary: 'Get one webhook subscription' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrors(400, 404)
  async getWebhook(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<WebhookDto> {
    return WebhookDto.from(await this.webhooks.get(workspaceId, id));
  }

  @Put(':id')
  @RequiredScope('webhooks:manage')
  @ApiOperation({
    summary: 'Replace a webhook subscription',
    description:
      'Same body as create; omitted fields take their defaults (all events, no description, enabled). ' +
      '`enabled: true` re-enables an endpoint the service disabled. The secret is unchanged.',
  })
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrors(400, 404)
  async updateWebhook(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Body() body: WebhookInputDto,
  ): Promise<WebhookDto> {
    return WebhookDto.from(await this.webhooks.update(workspaceId, id, body));
  }

  @Delete(':id')
  @RequiredScope('webhooks:manage')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook subscription, its pending deliveries and its delivery log' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(400, 404)
  async deleteWebhook(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<void> {
    await this.webhooks.remove(workspaceId, id);
  }

  @Post(':id/rotate-secret')
  @RequiredScope('webhooks:manage')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description:
      'Returns the new secret, once. For 24 h deliveries carry two signatures in `webhook-signature` ' +
      '(space-separated: new and old secret), so receivers can switch secrets without dropping events.',
  })
  @ApiBody({ type: EmptyBodyDto, required: false })
  @ApiOkResponse({ type: WebhookWithSecretDto })
  @ApiErrors(400, 404)
  async rotateWebhookSecret(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Body() _body: EmptyBodyDto,
  ): Promise<WebhookWithSecretDto> {
    const { webhook, secret } = await this.webhooks.rotateSecret(workspaceId, id);
    return { ...WebhookDto.from(webhook), secret };
  }

  @Post(':id/test')
  @RequiredScope('webhooks:manage')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a test event to this endpoint',
    description:
      'Queues a `webhook.test` event for this endpoint only (also while it is paused or disabled for failing; ' +
      '409 when it answered 410 Gone, until it is re-enabled) and returns it as it ' +
      'will be POSTed. It is signed, retried and logged like any delivery (see `GET /webhooks/{id}/deliveries`) ' +
      'but does not appear in `GET /events`.',
  })
  @ApiBody({ type: EmptyBodyDto, required: false })
  @ApiAcceptedResponse({ type: WebhookTestEventDto })
  @ApiErrors(400, 404, 409)
  async testWebhook(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Body() _body: EmptyBodyDto,
  ): Promise<WebhookTestEventDto> {
    return this.webhooks.sendTest(workspaceId, id);
  }

  @Get(':id/deliveries')
  @RequiredScope('webhooks:manage')
  @ApiOperation({
    summary: 'Delivery attempts to this endpoint, newest first (one item per HTTP attempt)',
    description:
      'Each item is one HTTP attempt (`attemptId`) of a delivery (`deliveryId`: one event to this endpoint, with ' +
      'one attempt or more). Redeliver takes the `deliveryId`. `id` is the deprecated name of `attemptId`.',
  })
  @ApiPageResponse(WebhookDeliveryDto)
  @ApiErrors(400, 404)
  async listWebhookDeliveries(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Query() query: PageQueryDto,
  ): Promise<Page<WebhookDeliveryDto>> {
    const page = await this.webhooks.listDeliveries(workspaceId, id, query);
    return { data: page.data.map((a) => WebhookDeliveryDto.from(a)), nextCursor: page.nextCursor };
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @RequiredScope('webhooks:manage')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send one delivery again',
    description:
      'Queues a new attempt of a settled delivery (succeeded, failed or cancelled) now, with the same event and the ' +
      'same `webhook-id`, so receivers can deduplicate. It shows up in the delivery log with the next attempt ' +
      "number; when it fails, the delivery's retry schedule continues from there. 409 while the delivery is still " +
      'pending or the endpoint is disabled. `deliveryId` is the `deliveryId` of the delivery log (an `attemptId` ' +
      'answers 404, naming the delivery it belongs to).',
  })
  @ApiBody({ type: EmptyBodyDto, required: false })
  @ApiAcceptedResponse({ type: RedeliveryDto })
  @ApiErrors(400, 404, 409)
  redeliverWebhookDelivery(
    @WorkspaceId() workspaceId: string,
    @Param() { id, deliveryId }: DeliveryParamDto,
    @Body() _body: EmptyBodyDto,
  ): Promise<RedeliveryDto> {
    return this.redelivery.redeliver(workspaceId, id, deliveryId);
  }

  @Post(':id/replay')
  @RequiredScope('webhooks:manage')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send the events of a time range again',
    description:
      'For a receiver that was down: every event created in `[from, to)` (at most 7 days) that this endpoint ' +
      'subscribes to is queued again, oldest first, up to 1,000 per call (`resumeFrom` says where to continue). ' +
      'Each keeps its `webhook-id`; deliveries still pending are left alone. Every attempt shows up in the delivery ' +
      'log. One replay per endpoint per minute (429 with `Retry-After`); 409 when the endpoint is disabled.',
  })
  @ApiAcceptedResponse({ type: ReplayResultDto })
  @ApiErrors(400, 404, 409)
  replayWebhookEvents(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Body() body: ReplayInputDto,
  ): Promise<ReplayResultDto> {
    return this.redelivery.replay(workspaceId, id, body);
  }
}
