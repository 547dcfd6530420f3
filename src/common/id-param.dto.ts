import { IsUUID } from 'class-validator';

export class IdParamDto {
  /** Resource id (UUID). */
  @IsUUID('all', { message: 'must be a UUID' })
  id!: string;
}
