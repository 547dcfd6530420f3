import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { PROVIDER_IDS, ProviderId } from '../../providers/provider.list';
import { ChannelStatus } from '../channel.entity';

export class ListChannelsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['active', 'disconnected'] })
  @IsOptional()
  @IsIn(['active', 'disconnected'])
  status?: ChannelStatus;

  @ApiPropertyOptional({ enum: PROVIDER_IDS })
  @IsOptional()
  @IsIn(PROVIDER_IDS)
  provider?: ProviderId;
}
