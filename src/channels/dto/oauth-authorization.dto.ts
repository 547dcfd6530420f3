import { ApiProperty } from '@nestjs/swagger';

export class OAuthAuthorizationDto {
  /** Open this in the user's browser: the network's consent page, with PKCE (S256) and the state. */
  authorizationUrl!: string;

  /** Single-use, bound to this workspace; the callback refuses it once used or expired. */
  state!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}
