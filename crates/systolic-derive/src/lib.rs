//! `#[derive(Tree)]`: makes a struct or enum a pytree of Systolic arrays (see the `Tree` trait
//! of the `systolic` crate, which re-exports this macro under the same name).
//!
//! Every field is a subtree (it must implement `Tree`) unless marked:
//! - `#[tree(static)]`: not a leaf but part of the structure: its `Debug` text goes into the
//!   tree's `TreeDef` (so into the jit cache key) and it is cloned on rebuild. The type must be
//!   `Debug + Clone`.
//! - `#[tree(skip)]`: neither a leaf nor part of the structure; cloned on rebuild (the type must
//!   be `Clone`). For data that does not change what is traced (names, counters, …).
//!
//! Structs with named fields, tuple structs, unit structs and enums are supported; generic type
//! parameters get a `Tree` bound when they appear in a subtree field, and `Debug + Clone` (or
//! `Clone`) bounds when they appear in static (or skipped) fields. A container attribute
//! `#[tree(bound = "T: Tree, U: Clone")]` replaces those inferred bounds.
//!
//! The generated code names `::systolic::…`; inside the `systolic` crate itself that path
//! resolves through `extern crate self as systolic`.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, Attribute, Data, DeriveInput, Fields, GenericParam, Ident, Index, LitStr,
    Token, Type, WherePredicate,
};

/// Derives `systolic::Tree` (see the crate documentation for the `#[tree(...)]` attributes).
#[proc_macro_derive(Tree, attributes(tree))]
pub fn derive_tree(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Subtree,
    Static,
    Skip,
}

fn field_role(attrs: &[Attribute]) -> syn::Result<Role> {
    let mut role = Role::Subtree;
    for attr in attrs.iter().filter(|a| a.path().is_ident("tree")) {
        attr.parse_nested_meta(|meta| {
            let new = if meta.path.is_ident("static") {
                Role::Static
            } else if meta.path.is_ident("skip") {
                Role::Skip
            } else {
                return Err(meta.error("expected `static` or `skip`"));
            };
            if role != Role::Subtree && role != new {
                return Err(meta.error("a field is either `static` or `skip`"));
            }
            role = new;
            Ok(())
        })?;
    }
    Ok(role)
}

/// The `#[tree(bound = "...")]` container attribute, if given.
fn container_bound(attrs: &[Attribute]) -> syn::Result<Option<Vec<WherePredicate>>> {
    let mut bound = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("tree")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("bound") {
                let text: LitStr = meta.value()?.parse()?;
                let preds = Punctuated::<WherePredicate, Token![,]>::parse_terminated
                    .parse_str(&text.value())
                    .map_err(|e| syn::Error::new(text.span(), e))?;
                bound = Some(preds.into_iter().collect());
                Ok(())
            } else {
                Err(meta.error("expected `bound = \"...\"` on the type"))
            }
        })?;
    }
    Ok(bound)
}

/// One field: how to name it in a pattern, its key in the structure, its type and role.
struct Field {
    binding: Ident,
    member: TokenStream2,
    key: String,
    ty: Type,
    role: Role,
}

fn fields_of(fields: &Fields) -> syn::Result<Vec<Field>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (member, key, binding) = match &f.ident {
                Some(id) => (quote!(#id), id.to_string(), format_ident!("__f_{}", id)),
                None => {
                    let idx = Index::from(i);
                    (quote!(#idx), i.to_string(), format_ident!("__f{}", i))
                }
            };
            Ok(Field {
                binding,
                member,
                key,
                ty: f.ty.clone(),
                role: field_role(&f.attrs)?,
            })
        })
        .collect()
}

/// Whether the type mentions the identifier (a generic parameter) anywhere.
fn mentions(ty: &Type, ident: &Ident) -> bool {
    fn walk(tokens: TokenStream2, ident: &Ident) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => &i == ident,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), ident),
            _ => false,
        })
    }
    walk(quote!(#ty), ident)
}

/// The code of one variant (or the struct): leaves, rebuild and def bodies, given the pattern
/// that binds its fields, the path that constructs it and its printed name.
struct Shape {
    pattern: TokenStream2,
    leaves: TokenStream2,
    rebuild: TokenStream2,
    def: TokenStream2,
}

fn shape(path: TokenStream2, name: &str, fields: &Fields, list: &[Field]) -> Shape {
    let bindings: Vec<&Ident> = list.iter().map(|f| &f.binding).collect();
    let members: Vec<&TokenStream2> = list.iter().map(|f| &f.member).collect();
    let pattern = match fields {
        Fields::Unit => quote!(#path),
        _ => quote!(#path { #(#members: #bindings),* }),
    };
    let leaves = list.iter().filter(|f| f.role == Role::Subtree).map(|f| {
        let b = &f.binding;
        quote!(::systolic::Tree::leaves(#b, __out);)
    });
    let values = list.iter().map(|f| {
        let b = &f.binding;
        let m = &f.member;
        match f.role {
            Role::Subtree => quote!(#m: ::systolic::Tree::rebuild(#b, __leaves)?),
            Role::Static | Role::Skip => quote!(#m: ::core::clone::Clone::clone(#b)),
        }
    });
    let rebuild = match fields {
        Fields::Unit => quote!(#path),
        _ => quote!(#path { #(#values),* }),
    };
    let parts = list.iter().filter(|f| f.role != Role::Skip).map(|f| {
        let b = &f.binding;
        let def = match f.role {
            Role::Static => quote!(::systolic::TreeDef::Static(::std::format!("{:?}", #b))),
            _ => quote!(::systolic::Tree::def(#b)),
        };
        match fields {
            Fields::Named(_) => {
                let key = &f.key;
                quote!((::std::string::String::from(#key), #def))
            }
            _ => def,
        }
    });
    let def = match fields {
        Fields::Named(_) => quote! {
            ::systolic::TreeDef::Struct(
                ::std::string::String::from(#name),
                ::std::vec![#(#parts),*],
            )
        },
        _ => quote! {
            ::systolic::TreeDef::Tuple(
                ::std::string::String::from(#name),
                ::std::vec![#(#parts),*],
            )
        },
    };
    Shape {
        pattern,
        leaves: quote!(#(#leaves)*),
        rebuild,
        def,
    }
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let name = &input.ident;
    let type_name = name.to_string();
    let mut all_fields: Vec<Field> = vec![];
    let shapes: Vec<Shape> = match &input.data {
        Data::Struct(s) => {
            let list = fields_of(&s.fields)?;
            let shape = shape(quote!(#name), &type_name, &s.fields, &list);
            all_fields.extend(list);
            vec![shape]
        }
        Data::Enum(e) => {
            if e.variants.is_empty() {
                return Err(syn::Error::new(
                    Span::call_site(),
                    "#[derive(Tree)] needs at least one variant",
                ));
            }
            let mut shapes = vec![];
            for v in &e.variants {
                if let Some(attr) = v.attrs.iter().find(|a| a.path().is_ident("tree")) {
                    return Err(syn::Error::new(
                        attr.span(),
                        "#[tree(...)] goes on fields, not on variants",
                    ));
                }
                let vname = &v.ident;
                let list = fields_of(&v.fields)?;
                shapes.push(shape(
                    quote!(#name::#vname),
                    &format!("{type_name}::{vname}"),
                    &v.fields,
                    &list,
                ));
                all_fields.extend(list);
            }
            shapes
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span(),
                "#[derive(Tree)] does not support unions",
            ))
        }
    };

    let mut generics = input.generics.clone();
    let bound = container_bound(&input.attrs)?;
    {
        let predicates = &mut generics.make_where_clause().predicates;
        match bound {
            Some(preds) => predicates.extend(preds),
            None => {
                for param in &input.generics.params {
                    let GenericParam::Type(tp) = param else {
                        continue;
                    };
                    let id = &tp.ident;
                    let used = |role: Role| {
                        all_fields
                            .iter()
                            .any(|f| f.role == role && mentions(&f.ty, id))
                    };
                    if used(Role::Subtree) {
                        predicates.push(syn::parse_quote!(#id: ::systolic::Tree));
                    }
                    if used(Role::Static) {
                        predicates.push(syn::parse_quote!(
                            #id: ::core::fmt::Debug + ::core::clone::Clone
                        ));
                    } else if used(Role::Skip) {
                        predicates.push(syn::parse_quote!(#id: ::core::clone::Clone));
                    }
                }
            }
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let patterns: Vec<&TokenStream2> = shapes.iter().map(|s| &s.pattern).collect();
    let leaves: Vec<&TokenStream2> = shapes.iter().map(|s| &s.leaves).collect();
    let rebuilds: Vec<&TokenStream2> = shapes.iter().map(|s| &s.rebuild).collect();
    let defs: Vec<&TokenStream2> = shapes.iter().map(|s| &s.def).collect();

    Ok(quote! {
        #[automatically_derived]
        #[allow(unused_variables, clippy::clone_on_copy)]
        impl #impl_generics ::systolic::Tree for #name #ty_generics #where_clause {
            fn leaves(&self, __out: &mut ::std::vec::Vec<::systolic::Array>) {
                match self {
                    #(#patterns => { #leaves })*
                }
            }
            fn rebuild(
                &self,
                __leaves: &mut dyn ::core::iter::Iterator<Item = ::systolic::Array>,
            ) -> ::systolic::Result<Self> {
                ::core::result::Result::Ok(match self {
                    #(#patterns => #rebuilds,)*
                })
            }
            fn def(&self) -> ::systolic::TreeDef {
                match self {
                    #(#patterns => #defs,)*
                }
            }
        }
    })
}
