import { BoundTenant } from '../../src/common/bound-tenant';
import { entities } from '../../src/common/entities';
import { checkedRef, checkFields } from '../../src/common/fields';
import { newId } from '../../src/common/ids';
import { AppError, ErrorCode } from '../../src/errors';

/*
 * Declared references (`attr.id({ ref })`): an id attribute that names another entity is checked
 * against the form of that entity's ids wherever a client's value is checked against the
 * declaration (checkFields), so no repository restates the prefix.
 */
describe('declared references', () => {
  it('name the id prefix of a declared entity, each of them', () => {
    const prefixes = new Set<string>(Object.values(entities).flatMap((model) => (model.idPrefix ? [model.idPrefix] : [])));
    const refs = Object.values(entities).flatMap((model) =>
      Object.entries(model.attributes).flatMap(([name, attribute]) =>
        attribute.ref ? [{ field: `${model.type}.${name}`, known: prefixes.has(attribute.ref) }] : [],
      ),
    );
    expect(refs.map((r) => r.field)).toEqual(expect.arrayContaining(['Asset.linkedLogId', 'Inspiration.linkedProjectId', 'Job.projectId']));
    for (const ref of refs) expect(ref).toEqual({ field: ref.field, known: true });
  });

  it("refuse a client's id of another form, naming the field, and take one of the referred entity's form", () => {
    const tenant = new BoundTenant('refs');
    const check = (linkedProjectId: string) => () =>
      checkFields(entities.Inspiration.attributes, { linkedProjectId }, { mode: 'update', tenant });
    const projectId = newId('proj');
    expect(check(projectId)()).toMatchObject({ linkedProjectId: projectId });
    for (const wrong of ['not-an-id', newId('log'), `${projectId}#PROJECT`]) {
      let thrown: unknown;
      try {
        check(wrong)();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect(thrown).toMatchObject({
        code: ErrorCode.BAD_USER_INPUT,
        message: expect.stringContaining('linkedProjectId must be an id of the form proj_<ULID>'),
      });
    }
    // A repository that asks for a reference's check on an attribute that declares none is a mistake, said at once.
    expect(() => checkedRef(entities.Inspiration.attributes.text, projectId, 'text')).toThrow('text is not a declared reference');
  });
});
