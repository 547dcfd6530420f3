import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Organization } from './organization.entity';

/** The `organizations` table (owned by auth). */
@Injectable()
export class OrganizationsStore {
  constructor(@InjectRepository(Organization) private readonly organizations: Repository<Organization>) {}

  insert(name: string): Promise<Organization> {
    return this.organizations.save(this.organizations.create({ name }));
  }

  findById(id: string): Promise<Organization | null> {
    return this.organizations.findOne({ where: { id } });
  }
}
