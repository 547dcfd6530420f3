import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { LoginService } from './login.service';
import { Membership } from './membership.entity';
import { Session } from './session.entity';
import { SessionsService } from './sessions.service';
import { SessionsStore } from './sessions.store';
import { SetupLinkService } from './setup-link.service';
import { UserLink } from './user-link.entity';
import { User } from './user.entity';
import { UsersService } from './users.service';
import { UsersStore } from './users.store';

/** Console accounts: users, memberships, sessions, setup and invitation links. No controllers. */
@Module({
  imports: [TypeOrmModule.forFeature([User, Membership, Session, UserLink]), AuthModule],
  providers: [UsersStore, SessionsStore, UsersService, SessionsService, LoginService, SetupLinkService],
  exports: [UsersService, SessionsService, LoginService, SetupLinkService],
})
export class UsersModule {}
