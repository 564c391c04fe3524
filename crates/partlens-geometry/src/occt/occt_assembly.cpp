// The product tree of a STEP assembly read by OpenCASCADE's XCAF (src/occt/assembly.rs is the Rust
// side): STEPCAFControl_Reader transfers the file into an XCAF document; from its free shapes
// (XCAFDoc_ShapeTool::GetFreeShapes) each assembly label's components (GetComponents) are walked,
// each component's referred label becoming a node (one per distinct label) and its location
// (GetLocation) a placement. Each node that is not an assembly is healed and meshed once, in its
// own coordinates, at a deflection from the whole assembly's size; its name is its label's (the
// STEP product's name, as XCAF reads it; XCAF names the solids it makes of a part's representation
// items after their kind). Which nodes are products the Rust side decides, against the pure-Rust
// reader's tree.
//
// As in occt_shim.cpp: nothing but return codes reaches Rust (every call inside try/catch), the
// deadline is polled through the progress indicator, and the limits (products, components,
// triangles) end the walk with a message.

#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include <BRepBndLib.hxx>
#include <Bnd_Box.hxx>
#include <IFSelect_ReturnStatus.hxx>
#include <STEPCAFControl_Reader.hxx>
#include <STEPControl_Reader.hxx>
#include <ShapeFix_Shape.hxx>
#include <Standard_Failure.hxx>
#include <TCollection_AsciiString.hxx>
#include <TCollection_ExtendedString.hxx>
#include <TDF_Label.hxx>
#include <TDF_LabelSequence.hxx>
#include <TDF_Tool.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_ShapeTool.hxx>

#include "occt_common.hpp"

using partlens::DeadlineProgress;
using partlens::set_message;

extern "C" {

// An assembly's tree of labels. Nodes ("products"): `product_count` of them, each with whether it
// is an assembly, its name (UTF-8, NUL-
// terminated, starting at `names + name_starts[i]`) and its own mesh: corners
// [vertex_ends[i-1], vertex_ends[i]) of `vertices` (x, y, z floats; vertex_ends[-1] = 0) and
// triangles [triangle_ends[i-1], triangle_ends[i]) of `triangles` (three indices each, counted from
// the product's first corner). Components: parent and child product and the placement from the
// child's coordinates to the parent's (a 3 x 4 matrix, row by row, millimetres). Roots: the free
// shapes' products. Owned by the shim; give it back with partlens_occt_free_assembly.
struct PartlensOcctAssembly {
  size_t product_count;
  const uint8_t *is_assembly;
  const char *names;
  const size_t *name_starts;
  const float *vertices;
  const size_t *vertex_ends;
  const uint32_t *triangles;
  const size_t *triangle_ends;
  size_t component_count;
  const size_t *component_parents;
  const size_t *component_children;
  const double *component_placements;
  size_t root_count;
  const size_t *roots;
  void *owner;
};

} // extern "C"

namespace {

// What a PartlensOcctAssembly points into.
struct AssemblyData {
  PartlensOcctAssembly view{};
  std::vector<uint8_t> is_assembly;
  std::string names;
  std::vector<size_t> name_starts;
  std::vector<float> vertices;
  std::vector<size_t> vertex_ends;
  std::vector<uint32_t> triangles;
  std::vector<size_t> triangle_ends;
  std::vector<size_t> component_parents;
  std::vector<size_t> component_children;
  std::vector<double> component_placements;
  std::vector<size_t> roots;

  PartlensOcctAssembly *publish() {
    view.product_count = is_assembly.size();
    view.is_assembly = is_assembly.data();
    view.names = names.data();
    view.name_starts = name_starts.data();
    view.vertices = vertices.data();
    view.vertex_ends = vertex_ends.data();
    view.triangles = triangles.data();
    view.triangle_ends = triangle_ends.data();
    view.component_count = component_parents.size();
    view.component_parents = component_parents.data();
    view.component_children = component_children.data();
    view.component_placements = component_placements.data();
    view.root_count = roots.size();
    view.roots = roots.data();
    view.owner = this;
    return &view;
  }
};

std::string entry_of(const TDF_Label &label) {
  TCollection_AsciiString entry;
  TDF_Tool::Entry(label, entry);
  return entry.ToCString();
}

std::string name_of(const TDF_Label &label) {
  Handle(TDataStd_Name) name;
  if (!label.FindAttribute(TDataStd_Name::GetID(), name)) {
    return std::string();
  }
  const TCollection_ExtendedString &text = name->Get();
  std::vector<char> buffer(static_cast<size_t>(text.LengthOfCString()) + 1, '\0');
  Standard_PCharacter start = buffer.data();
  text.ToUTF8CString(start);
  return std::string(buffer.data());
}

// The products and components reachable from the free shapes, each product label once.
struct Walk {
  std::vector<TDF_Label> labels;
  std::map<std::string, size_t> index;

  // The product of `label`, and whether it is new.
  std::pair<size_t, bool> add(const TDF_Label &label) {
    const std::string entry = entry_of(label);
    const auto found = index.find(entry);
    if (found != index.end()) {
      return {found->second, false};
    }
    labels.push_back(label);
    index.emplace(entry, labels.size() - 1);
    return {labels.size() - 1, true};
  }
};

// Walks the components down from the free shapes into `data` (roots, components, the is-assembly
// flags) and `walk` (the product labels). A message and a code other than OK past a limit.
int walk_components(const Handle(XCAFDoc_ShapeTool) &tool, size_t max_products,
                    size_t max_components, Walk &walk, AssemblyData &data, std::string &why) {
  TDF_LabelSequence free_shapes;
  tool->GetFreeShapes(free_shapes);
  std::vector<size_t> pending;
  for (Standard_Integer at = 1; at <= free_shapes.Length(); ++at) {
    const auto [product, fresh] = walk.add(free_shapes.Value(at));
    data.roots.push_back(product);
    if (fresh) {
      pending.push_back(product);
    }
  }
  while (!pending.empty()) {
    const size_t parent = pending.back();
    pending.pop_back();
    const TDF_Label label = walk.labels[parent];
    if (!XCAFDoc_ShapeTool::IsAssembly(label)) {
      continue;
    }
    TDF_LabelSequence components;
    XCAFDoc_ShapeTool::GetComponents(label, components, Standard_False);
    for (Standard_Integer at = 1; at <= components.Length(); ++at) {
      const TDF_Label component = components.Value(at);
      TDF_Label referred;
      if (!XCAFDoc_ShapeTool::GetReferredShape(component, referred)) {
        continue;
      }
      const auto [child, fresh] = walk.add(referred);
      if (walk.labels.size() > max_products) {
        why = "the assembly has more than " + std::to_string(max_products) + " products";
        return PARTLENS_OCCT_TOO_MANY_TRIANGLES;
      }
      if (data.component_parents.size() >= max_components) {
        why = "the assembly has more than " + std::to_string(max_components) + " components";
        return PARTLENS_OCCT_TOO_MANY_TRIANGLES;
      }
      const gp_Trsf placement = XCAFDoc_ShapeTool::GetLocation(component).Transformation();
      data.component_parents.push_back(parent);
      data.component_children.push_back(child);
      for (Standard_Integer row = 1; row <= 3; ++row) {
        for (Standard_Integer column = 1; column <= 4; ++column) {
          data.component_placements.push_back(placement.Value(row, column));
        }
      }
      if (fresh) {
        pending.push_back(child);
      }
    }
  }
  return PARTLENS_OCCT_OK;
}

// Heals and meshes every product that is not an assembly, into `data`'s meshes.
int mesh_products(const Walk &walk, double deflection, size_t max_triangles,
                  const Handle(DeadlineProgress) &progress, AssemblyData &data,
                  std::string &why) {
  for (size_t product = 0; product < walk.labels.size(); ++product) {
    if (progress->expired()) {
      return PARTLENS_OCCT_OUT_OF_TIME;
    }
    const TDF_Label &label = walk.labels[product];
    if (!data.is_assembly[product]) {
      TopoDS_Shape shape = XCAFDoc_ShapeTool::GetShape(label);
      if (!shape.IsNull()) {
        Handle(ShapeFix_Shape) healing = new ShapeFix_Shape(shape);
        healing->Perform(progress->Start());
        shape = healing->Shape();
        partlens::mesh_shape(shape, deflection, progress->Start());
        if (progress->expired()) {
          return PARTLENS_OCCT_OUT_OF_TIME;
        }
        std::vector<float> vertices;
        std::vector<uint32_t> triangles;
        const size_t left = max_triangles - data.triangles.size() / 3;
        if (!partlens::append_triangles(shape, vertices, triangles, left)) {
          why = "the products' meshes would have more than " + std::to_string(max_triangles) +
                " triangles";
          return PARTLENS_OCCT_TOO_MANY_TRIANGLES;
        }
        data.vertices.insert(data.vertices.end(), vertices.begin(), vertices.end());
        data.triangles.insert(data.triangles.end(), triangles.begin(), triangles.end());
      }
    }
    data.vertex_ends.push_back(data.vertices.size() / 3);
    data.triangle_ends.push_back(data.triangles.size() / 3);
  }
  return PARTLENS_OCCT_OK;
}

// Closes the XCAF document however the read ends.
struct OpenDocument {
  Handle(XCAFApp_Application) application = XCAFApp_Application::GetApplication();
  Handle(TDocStd_Document) document;

  OpenDocument() { application->NewDocument("MDTV-XCAF", document); }
  ~OpenDocument() {
    try {
      if (!document.IsNull() && document->IsOpened()) {
        application->Close(document);
      }
    } catch (...) {
    }
  }
};

} // namespace

extern "C" {

// Reads the STEP assembly of `length` bytes into its product tree (see PartlensOcctAssembly)
// within `seconds`, at most `max_products` products, `max_components` components and
// `max_triangles` triangles over all products' own meshes; each meshed at a linear deflection of
// `deflection_of_size` of the free shapes' bounding-box diagonal. On failure `message` holds why.
int partlens_occt_read_assembly(const uint8_t *bytes, size_t length, double seconds,
                                size_t max_products, size_t max_components,
                                size_t max_triangles, double deflection_of_size,
                                struct PartlensOcctAssembly **out, char *message,
                                size_t message_length) {
  if (out == nullptr) {
    return PARTLENS_OCCT_FAILED;
  }
  *out = nullptr;
  partlens::silence_messages();
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds));
  Handle(DeadlineProgress) progress = new DeadlineProgress(deadline);
  try {
    std::string text(reinterpret_cast<const char *>(bytes), length);
    std::istringstream stream(text);
    STEPCAFControl_Reader reader;
    reader.SetColorMode(Standard_False);
    reader.SetLayerMode(Standard_False);
    reader.SetPropsMode(Standard_False);
    reader.SetGDTMode(Standard_False);
    reader.SetMatMode(Standard_False);
    reader.SetViewMode(Standard_False);
    reader.SetSHUOMode(Standard_False);
    reader.SetNameMode(Standard_True);
    if (reader.ChangeReader().ReadStream("model.step", stream) != IFSelect_RetDone) {
      set_message(message, message_length, "OpenCASCADE cannot read the STEP file");
      return PARTLENS_OCCT_UNREADABLE;
    }
    OpenDocument open;
    if (!reader.Transfer(open.document, progress->Start()) || progress->expired()) {
      if (progress->expired()) {
        return PARTLENS_OCCT_OUT_OF_TIME;
      }
      set_message(message, message_length, "OpenCASCADE could not transfer the assembly");
      return PARTLENS_OCCT_UNREADABLE;
    }
    const Handle(XCAFDoc_ShapeTool) tool = XCAFDoc_DocumentTool::ShapeTool(open.document->Main());
    auto data = std::make_unique<AssemblyData>();
    Walk walk;
    std::string why;
    int outcome = walk_components(tool, max_products, max_components, walk, *data, why);
    if (outcome != PARTLENS_OCCT_OK) {
      set_message(message, message_length, why);
      return outcome;
    }
    if (walk.labels.empty()) {
      set_message(message, message_length, "OpenCASCADE found no shape in the file");
      return PARTLENS_OCCT_UNREADABLE;
    }
    Bnd_Box box;
    for (const size_t root : data->roots) {
      BRepBndLib::Add(XCAFDoc_ShapeTool::GetShape(walk.labels[root]), box);
    }
    if (box.IsVoid()) {
      set_message(message, message_length, "the shape has no extent");
      return PARTLENS_OCCT_UNREADABLE;
    }
    const double deflection = std::max(std::sqrt(box.SquareExtent()) * deflection_of_size, 1e-6);
    for (size_t product = 0; product < walk.labels.size(); ++product) {
      data->is_assembly.push_back(XCAFDoc_ShapeTool::IsAssembly(walk.labels[product]) ? 1 : 0);
      data->name_starts.push_back(data->names.size());
      data->names += name_of(walk.labels[product]);
      data->names.push_back('\0');
    }
    outcome = mesh_products(walk, deflection, max_triangles, progress, *data, why);
    if (outcome != PARTLENS_OCCT_OK) {
      set_message(message, message_length, why);
      return outcome;
    }
    *out = data.release()->publish();
    return PARTLENS_OCCT_OK;
  } catch (const Standard_Failure &failure) {
    set_message(message, message_length,
                std::string("OpenCASCADE failed: ") + failure.GetMessageString());
  } catch (const std::exception &failure) {
    set_message(message, message_length, std::string("OpenCASCADE failed: ") + failure.what());
  } catch (...) {
    set_message(message, message_length, "OpenCASCADE failed");
  }
  return PARTLENS_OCCT_FAILED;
}

// Gives back what partlens_occt_read_assembly allocated.
void partlens_occt_free_assembly(struct PartlensOcctAssembly *assembly) {
  if (assembly != nullptr) {
    delete static_cast<AssemblyData *>(assembly->owner);
  }
}

} // extern "C"
