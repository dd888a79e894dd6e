import type { GraphQLScalarType } from 'graphql';
import { ArgsType, Field, Float, ID, InputType, Int, ObjectType, registerEnumType, type ClassType } from 'type-graphql';
import {
  type AnyModel,
  type ArgumentValues,
  type AttributeMap,
  type ItemOf,
  attr,
  type Attribute,
  type AttributeOptions,
  type EnumDeclaration,
  type EnumObject,
  enumObject,
  type ShapeDeclaration,
  type ShapeValues,
  type SystemField,
} from '../infra/dynamo/entity';
import { Node } from './node.type';
import { Connection } from './connection';
import { DateTime, JSONObject, JSONValue, LocalDate } from './scalars';

/*
 * The GraphQL types of a declared entity, made from its declaration the way type-graphql's
 * generic-types example makes classes at run time: the object type (a Node with its key values and
 * attributes), its connection, the create and update inputs and the status enum. A feature whose
 * entity needs nothing else uses these instead of writing the classes by hand.
 */

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Names as a description lists them: `a, b or c`, for descriptions that name what declarations allow. */
export const orList = (names: readonly string[]): string =>
  names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');

/** The GraphQL name of an enum attribute's type: `MilestoneStatus` for Milestone's `status`. */
const enumName = (model: AnyModel, attribute: string) => `${model.type}${upperFirst(attribute)}`;

/** Every enum registered here, by GraphQL name with its values, so that an enum shared by several attributes is one type. */
const registered = new Map<string, { made: object; values: readonly string[] }>();

/**
 * Registers the GraphQL enum of an enum attribute (the status attribute's description gives the
 * transitions) and returns its object, which type-graphql knows it by: call it once per enum.
 */
export function enumOf<const V extends string>(
  model: AnyModel,
  attribute: string,
  values: readonly V[],
  name = enumName(model, attribute),
  valueDescriptions: Partial<Record<V, string>> = {},
): EnumObject<V> {
  const made = enumObject(values);
  registerEnumOf(model, attribute, made, name, valueDescriptions);
  return made;
}

/**
 * Registers `made`, the enum object of a model's enum attribute that its code already holds, as
 * the GraphQL enum `name`, described from the declaration as enumOf does: call it once per enum.
 */
export function registerEnumOf(
  model: AnyModel,
  attribute: string,
  made: Record<string, string>,
  name: string,
  valueDescriptions: Partial<Record<string, string>> = {},
  enumDescription?: string,
): void {
  const isStatus = model.status?.attribute === attribute;
  // A status enum describes its machine; any other enum says what its attribute holds.
  const description = isStatus
    ? `Transitions: ${model.describeTransitions()}.`
    : (enumDescription ?? model.attributes[attribute]?.description);
  // What each value means: a status machine's declared descriptions, else the caller's.
  const meanings: Partial<Record<string, string>> = isStatus ? { ...model.status?.descriptions, ...valueDescriptions } : valueDescriptions;
  registerEnum(made, { name, description, values: meanings });
}

/**
 * Registers `made` as the GraphQL enum its declaration names, for every attribute that names it
 * (see attributeEnum): call it once, from a module the features that use the enum import, so it is
 * registered before their declarations are made into types (else it is registered twice, and this throws).
 */
export function registerDeclaredEnum(made: Record<string, string>, declaration: EnumDeclaration & { name: string }): void {
  registerEnum(made, declaration);
}

function registerEnum(made: Record<string, string>, declaration: EnumDeclaration & { name: string }): void {
  const { name, description, values: meanings = {} } = declaration;
  if (registered.has(name)) throw new Error(`The enum ${name} is registered twice.`);
  const values = Object.values(made);
  registered.set(name, { made, values });
  const valuesConfig = Object.fromEntries(values.map((value) => [value.toUpperCase(), { description: meanings[value] }]));
  // The same object, seen by its string keys, so the values' configuration can be built from them.
  registerEnumType(made, { name, description, valuesConfig });
}

/**
 * The GraphQL enum of a model's enum attribute `name`: the one its EnumDeclaration names (shared
 * with every other attribute that names it), else `<Entity><Attribute>`; registered on first use.
 * Throws (a programming error) when two attributes name one enum with different values, or when an
 * attribute of a shape that belongs to no model names no enum.
 */
export function attributeEnum(
  model: AnyModel | undefined,
  name: string,
  attribute: { values?: readonly string[]; enumType?: EnumDeclaration; description?: string },
): object {
  const typeName = attribute.enumType?.name ?? (model ? enumName(model, name) : undefined);
  if (!typeName) throw new Error(`The enum attribute ${name} of a shape without an entity names no enum.`);
  const values = attribute.values ?? [];
  const existing = registered.get(typeName);
  if (existing) {
    if (existing.values.join() !== values.join()) throw new Error(`The enum ${typeName} is declared with different values.`);
    return existing.made;
  }
  const made = enumObject(values);
  const { values: meanings, description } = attribute.enumType ?? {};
  if (model) registerEnumOf(model, name, made, typeName, meanings, description);
  else registerEnum(made, { name: typeName, description: description ?? attribute.description, values: meanings });
  return made;
}

/**
 * The API's types by GraphQL name, for attributes that name one (Attribute.apiType): every type
 * made here, and those a feature registers (registerApiType).
 */
const apiTypes = new Map<string, object>();

/**
 * Makes `type`, a hand-written object type or an enum registered with type-graphql, the one
 * attributes naming `name` (Attribute.apiType) take. Throws (a programming error) when another
 * type has the name.
 */
export function registerApiType(name: string, type: object): void {
  const existing = apiTypes.get(name);
  if (existing && existing !== type) throw new Error(`The API type ${name} is registered twice.`);
  apiTypes.set(name, type);
}

// The JSON scalars, for attributes that hold lists of JSON objects (an archived job's rows); and
// the instant as an argument takes it, which the scalar hands a resolver as a Date (attr.dateTime
// holds the ISO string an item stores).
registerApiType('JSONObject', JSONObject);
registerApiType('DateTime', DateTime);

/** The API type or enum named `name`, when the schema is built. Throws (a programming error) when none has the name. */
function apiTypeNamed(name: string): () => object {
  return () => {
    const found = apiTypes.get(name) ?? registered.get(name)?.made;
    if (!found) throw new Error(`No API type or enum is named ${name}.`);
    return found;
  };
}

/** The object and input types of declared shapes, made once per name. */
const shapes = new Map<string, ClassType>();

function shapeType(model: AnyModel | undefined, shape: ShapeDeclaration, input: boolean, partial = false): ClassType {
  const typeName = input ? `${shape.name}Input` : shape.name;
  const existing = shapes.get(typeName);
  if (existing) return existing;
  const type = named(class {}, typeName);
  declareFields(type, model, shape.fields, input, partial);
  if (input) InputType(typeName, { description: shape.inputDescription ?? shape.description })(type);
  else ObjectType(typeName, { simpleResolvers: true, description: shape.description })(type);
  shapes.set(typeName, type);
  if (!input) registerApiType(typeName, type);
  return type;
}

/**
 * Declares `fields` (hidden ones left out) on `type`: as an object type shows them, or (with
 * `input`) as arguments and input fields take them, non-null only when required (never when
 * `partial`), with their declared default and what their input says of them.
 */
function declareFields(type: ClassType, model: AnyModel | undefined, fields: AttributeMap, input: boolean, partial = false): void {
  for (const [name, attribute] of Object.entries(fields)) {
    if (attribute.hidden) continue;
    const options = input
      ? {
          nullable: partial || !attribute.required,
          description: attribute.createDescription ?? attribute.description,
          deprecationReason: attribute.deprecationReason,
          ...(attribute.default === undefined ? {} : { defaultValue: attribute.default }),
        }
      : { ...fieldOptions(attribute), description: attribute.description };
    Field(typeOf(model, name, attribute, input), options)(type.prototype, name);
  }
}

/** A field's nullability and deprecation in an object type, from its attribute. */
const fieldOptions = (attribute: Attribute) => ({
  nullable: !(attribute.required || attribute.shownRequired),
  deprecationReason: attribute.deprecationReason,
});

/**
 * The object type of a declared shape that no attribute holds: a view or a payload the API
 * answers with (a claim's work, a replay's result). Its attributes may name other API types
 * (Attribute.apiType). Made once per name; its instances are typed as the shape's values, so
 * `type X = InstanceType<typeof X>` is the TypeScript type of what a resolver answers with.
 */
export function shapeObjectType<const S extends ShapeDeclaration>(shape: S, model?: AnyModel): ClassType<ShapeValues<S>>;
// The class made at run time holds no values itself: its instance type only says what resolvers answer with.
export function shapeObjectType(shape: ShapeDeclaration, model?: AnyModel): ClassType {
  return shapeType(model, shape, false);
}

/**
 * The input type `<name>Input` of a declared shape (described by its `inputDescription`): its
 * fields as inputs take them, so an attribute that is not required may be omitted; with `partial`,
 * any may be (an input of overrides, where an omitted value is the default's). Made once per name;
 * its instances are typed as the values a client gives.
 */
export function shapeInputType<const S extends ShapeDeclaration>(
  shape: S,
  options?: { partial?: false },
): ClassType<ArgumentValues<S['fields']>>;
export function shapeInputType<const S extends ShapeDeclaration>(
  shape: S,
  options: { partial: true },
): ClassType<Partial<ArgumentValues<S['fields']>>>;
// As above: the instance type says what a resolver is handed.
export function shapeInputType(shape: ShapeDeclaration, options: { partial?: boolean } = {}): ClassType {
  return shapeType(undefined, shape, true, options.partial);
}

/**
 * An input type named `name` of declared fields (see shapeInputType), for an input that is no
 * shape's: a mutation's own request. Its instances are typed as the values a client gives.
 */
export function inputType<const F extends AttributeMap>(name: string, description: string, fields: F): ClassType<ArgumentValues<F>>;
// As above: the instance type says what a resolver is handed.
export function inputType(name: string, description: string, fields: AttributeMap): ClassType {
  const type = named(class {}, name);
  declareFields(type, undefined, fields, true);
  InputType(name, { description })(type);
  return type;
}

/**
 * The arguments of a query or mutation, declared as attributes are: each one an argument,
 * non-null only when required, with its declared default. `base` gives arguments that several
 * share (PageArgs), before these. The class is named `name` for type-graphql's errors only (an
 * args class is no type of the schema); its instances are typed as the values a client gives.
 */
export function argsType<const F extends AttributeMap, B extends object = object>(
  name: string,
  fields: F,
  base?: ClassType<B>,
): ClassType<B & ArgumentValues<F>>;
// As above: the instance type says what a resolver is handed.
export function argsType(name: string, fields: AttributeMap, base?: ClassType): ClassType {
  const type = named(base ? class extends base {} : class {}, name);
  declareFields(type, undefined, fields, true);
  ArgsType()(type);
  return type;
}

type FieldType = () => GraphQLScalarType | object | [GraphQLScalarType] | [object];

/** The GraphQL type of one attribute, as an object type shows it or (with `input`) an input takes it. */
function typeOf(model: AnyModel | undefined, name: string, attribute: Attribute, input = false): FieldType {
  if (attribute.apiType) {
    // `[Name]` is a list of the type named Name.
    const list = /^\[(\w+)\]$/.exec(attribute.apiType);
    const found = apiTypeNamed(list ? list[1] : attribute.apiType);
    return list ? () => [found()] : found;
  }
  switch (attribute.kind) {
    case 'id':
      return () => ID;
    case 'int':
      return () => Int;
    case 'float':
      return () => Float;
    case 'boolean':
      return () => Boolean;
    case 'date':
      return () => LocalDate;
    case 'dateTime':
      return () => DateTime;
    case 'json': {
      if (attribute.objectOf) {
        const value = shapeType(model, attribute.objectOf, input);
        return () => value;
      }
      if (attribute.listOf) {
        const entry = shapeType(model, attribute.listOf, input);
        return () => [entry];
      }
      return attribute.jsonObject ? () => JSONObject : () => JSONValue;
    }
    case 'strings':
      return () => [String];
    case 'enum': {
      const type = attributeEnum(model, name, attribute);
      return () => type;
    }
    default:
      return () => String;
  }
}

/**
 * The builder of an attribute (an argument, most often) that holds one of `model`'s states: typed
 * as its states, and shown as its status enum (`JobStatus`), which the model's types register.
 */
export function stateOf<M extends AnyModel>(model: M) {
  const status = model.status;
  if (!status) throw new Error(`${model.type} has no status machine.`);
  const name = status.enumName ?? enumName(model, status.attribute);
  const make = attr.json<M['states'][number]>();
  return <const O extends AttributeOptions<M['states'][number]>>(options: O) => make({ ...options, apiType: name });
}

/** The status attribute of a model with a machine, as an enum attribute of its states. */
function statusAttribute(model: AnyModel): [string, Attribute] | undefined {
  const status = model.status;
  if (!status) return undefined;
  const description = status.description ?? `Where it is: see ${model.type}${upperFirst(status.attribute)} for the transitions.`;
  const enumType = status.enumName ? { name: status.enumName } : undefined;
  return [status.attribute, { kind: 'enum', required: true, values: model.states, description, enumType }];
}

/** The attributes of a model with the status attribute among them, in declaration order. */
function attributesOf(model: AnyModel): [string, Attribute][] {
  const declared: [string, Attribute][] = Object.entries(model.attributes);
  const status = statusAttribute(model);
  return status ? [...declared, status] : declared;
}

/** Names a class made at run time, so type-graphql's errors and the schema name it. */
function named<T extends ClassType>(cls: T, name: string): T {
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

/** The object type, connection and inputs of a model (see above); made once per model. */
export interface ModelTypes<Item extends object = object> {
  /** The object type; its instances are typed as the entity's stored items. */
  type: ClassType<Item>;
  connection: ClassType;
  createInput: ClassType;
  updateInput: ClassType;
  /** The status enum, when the model has a machine. */
  status?: object;
  /** The GraphQL type of each attribute (the status included), for arguments. */
  attributeTypes: ReadonlyMap<string, FieldType>;
}

const made = new Map<AnyModel, ModelTypes>();

/** What the server adds to every item, as the API shows it, and what it says of it by default. */
const SYSTEM_FIELDS = ['version', 'createdAt', 'updatedAt', 'createdBy'] as const satisfies readonly SystemField[];
const systemFields: Record<SystemField, { type: FieldType; description: string }> = {
  version: { type: () => Int, description: 'Increments on every change; pass it as expectedVersion to update.' },
  createdAt: { type: () => DateTime, description: 'When it was created.' },
  updatedAt: { type: () => DateTime, description: 'When it last changed.' },
  createdBy: { type: () => String, description: 'The user who created it.' },
};

/**
 * The connection type of `type` (see Connection), described by `description` and named `name`
 * (`<Type>Connection` by default): what every list of a declared type or shape answers with.
 */
export function connectionOf(type: ClassType, description: string, name = `${type.name}Connection`): ClassType {
  const connection = named(class extends Connection(type) {}, name);
  ObjectType(name, { simpleResolvers: true, description })(connection);
  return connection;
}

/**
 * The GraphQL types of `model` (see ModelTypes), made on the first call and the same ones after.
 * Attributes the declaration hides are left out of every type, internal ones and key values out of
 * the inputs, update-only ones out of the create input and read-only ones out of the update input.
 * Its object type is a Node with every system field unless its declaration's `api` says otherwise.
 * Throws (a programming error) when two declarations name one enum with different values.
 */
export function modelTypes<M extends AnyModel>(model: M): ModelTypes<ItemOf<M>>;
// The classes made at run time hold no values themselves: the item type only says what resolvers answer with.
export function modelTypes(model: AnyModel): ModelTypes {
  const existing = made.get(model);
  if (existing) return existing;
  const describe = model.describe;
  const type = named(class {}, model.type);
  // The entity's own id first, then the other values of its key, then its attributes; a key value
  // that is also an attribute (a brief's version) is typed and described as the attribute.
  const keyFields = [model.idField, ...model.keyFields.filter((f) => f !== model.idField)].filter((f) => !(f in model.attributes));
  for (const field of keyFields) {
    const whose =
      field === model.idField ? `The ${model.type.toLowerCase()}'s id.` : `The id of the ${field.replace(/Id$/, '')} it belongs to.`;
    Field(() => ID, { description: describe[field] ?? whose })(type.prototype, field);
  }
  const attributeTypes = new Map<string, FieldType>();
  for (const [name, attribute] of attributesOf(model)) {
    const fieldType = typeOf(model, name, attribute);
    attributeTypes.set(name, fieldType);
    if (!attribute.hidden) Field(fieldType, { ...fieldOptions(attribute), description: attribute.description })(type.prototype, name);
  }
  for (const name of model.api.system ?? SYSTEM_FIELDS) {
    if (name in model.attributes) continue;
    const { type: fieldType, description } = systemFields[name];
    Field(fieldType, { description: describe[name] ?? description })(type.prototype, name);
  }
  const node = model.api.node ?? true;
  ObjectType(model.type, { simpleResolvers: true, ...(node ? { implements: Node } : {}), description: model.description })(type);
  registerApiType(model.type, type);

  const connection = connectionOf(type, describe.connection ?? `A page of ${model.type} items, with the cursor to the next page.`);

  const createInput = named(class {}, `Create${model.type}Input`);
  const updateInput = named(class {}, `Update${model.type}Input`);
  for (const [name, attribute] of Object.entries<Attribute>(model.attributes)) {
    if (attribute.internal || attribute.hidden || model.keyFields.includes(name)) continue;
    const optional = !attribute.required || attribute.default !== undefined;
    const fieldType = typeOf(model, name, attribute, true);
    const create = attribute.createDescription ?? attribute.description;
    if (!attribute.updateOnly) Field(fieldType, { nullable: optional, description: create })(createInput.prototype, name);
    const update = attribute.updateDescription ?? attribute.description;
    if (!attribute.readOnly) Field(fieldType, { nullable: true, description: update })(updateInput.prototype, name);
  }
  InputType(`Create${model.type}Input`, {
    description: describe.createInput ?? `A new ${model.type}: its attributes; the server makes its id.`,
  })(createInput);
  InputType(`Update${model.type}Input`, {
    description: describe.updateInput ?? 'Fields to change; an omitted field is kept, a null clears it.',
  })(updateInput);

  const statusDeclared = statusAttribute(model);
  const status = statusDeclared ? attributeEnum(model, ...statusDeclared) : undefined;
  const types = { type, connection, createInput, updateInput, status, attributeTypes };
  made.set(model, types);
  return types;
}
