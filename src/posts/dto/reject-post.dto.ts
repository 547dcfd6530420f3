import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class RejectPostDto {
  /** Why the post is not going out; the post keeps it (`rejection.reason`) as a draft. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  reason!: string;
}
