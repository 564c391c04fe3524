// What the two C++ files of the `occt` feature share (occt_shim.cpp reads one shape, occt_assembly.cpp
// an assembly's product tree): the deadline progress indicator, the silenced messenger, messages
// into the caller's buffer, arrays handed over to Rust, and the triangles of a meshed shape.

#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <BRepMesh_IncrementalMesh.hxx>
#include <BRep_Tool.hxx>
#include <IMeshTools_Parameters.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_PrinterOStream.hxx>
#include <Message_ProgressIndicator.hxx>
#include <Message_ProgressScope.hxx>
#include <Poly_Triangulation.hxx>
#include <Standard_Version.hxx>
#include <TopAbs_Orientation.hxx>
#include <TopExp_Explorer.hxx>
#include <TopLoc_Location.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Face.hxx>
#include <TopoDS_Shape.hxx>

#if OCC_VERSION_HEX < 0x070400 || OCC_VERSION_HEX >= 0x070800
#error "the occt feature links the OpenCASCADE 7.4-7.7 libraries (TKSTEP, TKIGES, ...)"
#endif

// Outcomes of the shim's calls.
enum {
  PARTLENS_OCCT_OK = 0,
  PARTLENS_OCCT_UNREADABLE = 1, // the file does not read or transfers to no shape
  PARTLENS_OCCT_OUT_OF_TIME = 2,
  PARTLENS_OCCT_TOO_MANY_TRIANGLES = 3,
  PARTLENS_OCCT_FAILED = 4, // OpenCASCADE raised an exception
};

namespace partlens {

// Says "stop" to OpenCASCADE's long operations once the deadline has passed.
class DeadlineProgress : public Message_ProgressIndicator {
public:
  explicit DeadlineProgress(std::chrono::steady_clock::time_point deadline)
      : deadline_(deadline) {}

  Standard_Boolean UserBreak() override {
    return std::chrono::steady_clock::now() >= deadline_;
  }

  void Show(const Message_ProgressScope &, const Standard_Boolean) override {}

  bool expired() const { return std::chrono::steady_clock::now() >= deadline_; }

private:
  std::chrono::steady_clock::time_point deadline_;
};

inline void silence_messages() {
  static std::once_flag once;
  std::call_once(once, [] {
    const Handle(Message_Messenger) &messenger = Message::DefaultMessenger();
    messenger->RemovePrinters(STANDARD_TYPE(Message_PrinterOStream));
  });
}

inline void set_message(char *buffer, size_t length, const std::string &text) {
  if (buffer == nullptr || length == 0) {
    return;
  }
  std::snprintf(buffer, length, "%s", text.c_str());
}

// Copies `values` into a new array for the caller (null when empty or out of memory).
template <typename T> inline T *handed_over(const std::vector<T> &values) {
  if (values.empty()) {
    return nullptr;
  }
  T *copy = new (std::nothrow) T[values.size()];
  if (copy != nullptr) {
    std::memcpy(copy, values.data(), values.size() * sizeof(T));
  }
  return copy;
}


// The angular deflection of every mesh, in radians.
constexpr double ANGULAR_DEFLECTION = 0.5;

// Meshes `shape`'s faces at `deflection` (absolute, in the shape's lengths) and
// ANGULAR_DEFLECTION, on this thread, polling `range` for the deadline.
inline void mesh_shape(const TopoDS_Shape &shape, double deflection,
                       const Message_ProgressRange &range) {
  IMeshTools_Parameters parameters;
  parameters.Deflection = deflection;
  parameters.Angle = ANGULAR_DEFLECTION;
  parameters.Relative = Standard_False;
  parameters.InParallel = Standard_False;
  BRepMesh_IncrementalMesh mesher(shape, parameters, range);
}

// Appends the triangles of every face of `shape` (meshed before) to `vertices` (x, y, z floats) and
// `triangles` (indices into them, counted from the first vertex of `vertices`), in the shape's
// coordinates with its faces' locations applied. False, with nothing more appended, when the
// triangles would pass `max_triangles` in all.
inline bool append_triangles(const TopoDS_Shape &shape, std::vector<float> &vertices,
                             std::vector<uint32_t> &triangles, size_t max_triangles) {
  for (TopExp_Explorer faces(shape, TopAbs_FACE); faces.More(); faces.Next()) {
    const TopoDS_Face &face = TopoDS::Face(faces.Current());
    TopLoc_Location location;
    const Handle(Poly_Triangulation) &triangulation = BRep_Tool::Triangulation(face, location);
    if (triangulation.IsNull()) {
      continue;
    }
    if (triangles.size() / 3 + static_cast<size_t>(triangulation->NbTriangles()) > max_triangles) {
      return false;
    }
    const gp_Trsf transform = location.Transformation();
    const size_t first = vertices.size() / 3;
    for (Standard_Integer node = 1; node <= triangulation->NbNodes(); ++node) {
      const gp_Pnt point = triangulation->Node(node).Transformed(transform);
      vertices.push_back(static_cast<float>(point.X()));
      vertices.push_back(static_cast<float>(point.Y()));
      vertices.push_back(static_cast<float>(point.Z()));
    }
    const bool reversed = face.Orientation() == TopAbs_REVERSED;
    for (Standard_Integer index = 1; index <= triangulation->NbTriangles(); ++index) {
      Standard_Integer a = 0, b = 0, c = 0;
      triangulation->Triangle(index).Get(a, b, c);
      if (reversed) {
        std::swap(b, c);
      }
      for (Standard_Integer corner : {a, b, c}) {
        triangles.push_back(static_cast<uint32_t>(first + corner - 1));
      }
    }
  }
  return true;
}

} // namespace partlens
